/**
 * What one A2A skill is (`defineSkill`), for the registry in skills.ts: its id, the card's words for it, the
 * scopes it needs, a JSON Schema for its input and an `async perform` that calls the same service functions as
 * the REST routes and the MCP tools, with the same refusals. A skill lives in its own file,
 * runtime/a2a/skill-<id>.ts, and is listed once in skills.ts; the agent card (runtime/hub/agent-card.ts) lists
 * what is registered.
 */
import type { ProblemSlug } from '../../core/problems.js';
import type { Principal } from '../../platform/http/auth.js';
import type { Json } from '../../services/index/entry.js';
import { TOOL_SCOPES } from '../mcp/tool-scopes.js';
import type { HubMcpDeps } from '../mcp/tools.js';

/** What a skill may use of the hub: the services the MCP tools use. */
export type SkillDeps = HubMcpDeps;

/** A refusal or failure in the recipe API's shape: the problem slug and a sentence. */
export interface SkillProblem {
  error: ProblemSlug;
  detail: string;
  [k: string]: unknown;
}

/** What a skill answers; the executor turns it into A2A task states. */
export type SkillOutcome =
  /** Done: the task completes with this artifact. */
  | { kind: 'done'; summary: string; data: Json }
  /** A person must act on the hub before the agent can go on (the task waits in `input-required`). */
  | { kind: 'input'; summary: string; data: Json; sessionId: string }
  /** The session cooks: the task is `working` and follows the session until it ends. */
  | { kind: 'follow'; summary: string; data: Json; sessionId: string }
  /** Refused (scope, input, a service's refusal): the task is `rejected`. */
  | { kind: 'refused'; problem: SkillProblem };

export interface A2aSkill<I = unknown> {
  /** The id an agent names in its data part, `{"skill": id, "input": {...}}`, and the card lists. */
  id: string;
  /** The card's name, description (say the scopes), tags and examples (a data part's JSON). */
  name: string;
  description: string;
  tags: string[];
  examples: string[];
  /** The input in one line for the help a refusal gives, e.g. `{sessionId, acknowledgedRules?}`. */
  usage: string;
  /** Scopes the token needs before anything runs (more may be checked inside, as restock_kitchen's lines do). */
  scopes: readonly string[];
  /** JSON Schema of `input`; checked before `perform`. */
  input: object;
  /**
   * Do it for `principal`. A ProblemError thrown is a refusal (the task is `rejected` with its slug); any
   * other error fails the task.
   */
  perform(d: SkillDeps, input: I, principal: Principal): SkillOutcome | Promise<SkillOutcome>;
}

/** A skill with a typed input (the registry checks the input against `input` before `perform`). */
export function defineSkill<I>(s: A2aSkill<I>): A2aSkill {
  return s;
}

/** The scopes of MCP tools, for a skill that performs them (so both doors need the same). */
export function toolScopes(...tools: string[]): string[] {
  return tools
    .map((t) => {
      const s = TOOL_SCOPES[t];
      if (s === undefined) throw new Error(`tool ${t} has no scope in TOOL_SCOPES`);
      return s;
    })
    .filter((s): s is string => s !== null);
}

/** The refusal for a token without `missing`. */
export function forbidden(skill: string, missing: readonly string[]): SkillOutcome {
  return {
    kind: 'refused',
    problem: {
      error: 'forbidden',
      detail: `the skill ${skill} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      requiredScope: missing[0],
      requiredScopes: [...missing],
    },
  };
}
