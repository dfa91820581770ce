/**
 * The hub's tools without a transport: a name, a JSON Schema for the arguments, the scope it needs and a `run`
 * that calls the hub's services. MCP (tools.ts registers each one with the SDK) and MQTT command topics
 * (runtime/mqtt/commands.ts) both call these, so an operation does the same and is refused the same way
 * whichever door it came through.
 */
import type { Principal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import { schemaIssues } from '../../platform/mcp/schema.js';
import type { Json } from '../../services/index/entry.js';
import { TOOL_SCOPES } from './tool-scopes.js';

/** What a tool answered: a JSON value, or a refusal with a problem slug (core/problems.ts), a detail and extensions. */
export type ToolOutcome = { ok: true; value: Json } | { ok: false; error: string; detail: string; extra: Json };

export interface HubTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object). */
  schema: Record<string, unknown>;
  readOnly: boolean;
  /** The scope the tool needs; null = any paired token. */
  scope: string | null;
  /** The arguments are never refused against the schema (the emergency stop reads what it can). */
  anyArgs?: boolean;
  /** Checks the scope itself, then does the work. Starts synchronously: an e-stop cuts heat before it returns. */
  run(args: unknown, p: Principal): Promise<ToolOutcome>;
}

export const ok = (value: Json): ToolOutcome => ({ ok: true, value });
export const refusal = (error: string, detail: string, extra: Json = {}): ToolOutcome => ({ ok: false, error, detail, extra });

/** The refusal for a token without the tool's scope, or undefined when it may call it. */
export function scopeRefusal(tool: Pick<HubTool, 'name' | 'scope'>, p: Pick<Principal, 'scopes'>): ToolOutcome | undefined {
  if (tool.scope === null || p.scopes.includes(tool.scope)) return undefined;
  return refusal('forbidden', `the tool ${tool.name} needs the scope ${tool.scope}`, { requiredScope: tool.scope });
}

/**
 * Call `tool` as a transport other than MCP does (the SDK validates MCP arguments itself): the scope first, as over
 * HTTP, then the arguments against the tool's schema, then the tool. Not async on purpose: the tool starts before
 * this returns, so an emergency stop has cut heat by then.
 */
export function callTool(tool: HubTool, args: unknown, p: Principal): Promise<ToolOutcome> {
  const denied = scopeRefusal(tool, p);
  if (denied) return Promise.resolve(denied);
  if (!tool.anyArgs) {
    const issues = schemaIssues(tool.schema, args);
    if (issues.length > 0) return Promise.resolve(refusal('validation-failed', `arguments of ${tool.name}: ${issues.join('; ')}`));
  }
  try {
    return tool.run(args, p);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * A tool whose scope is its row in TOOL_SCOPES: the scope is checked first, then `fn` runs; a ProblemError it
 * throws becomes a refusal with the problem's slug, and `mapError` may turn other errors into refusals.
 */
export function scopedTool<A>(
  name: string,
  description: string,
  schema: Record<string, unknown>,
  fn: (args: A, p: Principal) => Json | Promise<Json>,
  readOnly = false,
  mapError?: (err: unknown) => ToolOutcome | undefined,
): HubTool {
  const need = TOOL_SCOPES[name];
  if (need === undefined) throw new Error(`tool ${name} has no scope in TOOL_SCOPES`);
  const self: HubTool = {
    name,
    description,
    schema,
    readOnly,
    scope: need,
    run: async (args, p) => {
      const denied = scopeRefusal(self, p);
      if (denied) return denied;
      try {
        // `fn` runs at once (an emergency stop cuts heat before this returns); an async one is awaited here.
        return ok(await fn(args as A, p));
      } catch (err) {
        if (err instanceof ProblemError) return refusal(err.slug, err.detail ?? err.slug, err.extensions as Json);
        const mapped = mapError?.(err);
        if (mapped) return mapped;
        throw err;
      }
    },
  };
  return self;
}
