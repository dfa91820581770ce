/**
 * MQTT 5 request/response for local agents: the hub's MCP tools as operations on `svc/{k}/command/{operation}`
 * (create_session, list_tasks, emergency_stop, …). A request is the tool's arguments as JSON; the answer goes to
 * the request's Response Topic with its Correlation Data: the tool's JSON result, or an RFC 9457 problem document
 * (`application/problem+json`) with the MQTT 5 reason code that fits in the `reason-code` user property and the
 * HTTP status in `status`. The operations are the same tool objects MCP registers (runtime/mcp/tools.ts), checked
 * against the token the client logged in with, scope first, as over HTTP.
 *
 * - A response topic must be one of the client's own reply topics, `svc/{k}/reply/{clientId}[/…]` (topics.ts):
 *   only that client can subscribe to it, so nobody else reads the answer. Another response topic refuses the
 *   request (PUBACK/PUBREC 0x87).
 * - A token without the operation's scope, or an unknown operation: PUBACK/PUBREC 0x87 and a problem answer.
 * - `emergency_stop` is never refused: any token, any payload, any (or no) response topic; heat is cut before
 *   the PUBACK leaves. The older `estop` topic keeps its own path (bridge.ts) and answers nothing.
 * - The other tools (runtime/mcp/tools.ts) load on the first other request, not at start: the PUBACK's verdict
 *   comes from the tools' scope table at once (tool-scopes.ts), the answer once they have loaded. The stop's
 *   own module is loaded from the start, so a stop never waits on that import.
 * - One token has at most `MAX_MCP_REQUESTS_PER_TOKEN` requests being answered (the MCP limit); one more is
 *   answered `rate-limited` (0x97).
 */
import { isProblemSlug, type ProblemSlug, problem, problemCatalog } from '../../core/problems.js';
import type { Principal, PrincipalKind } from '../../platform/http/auth.js';
import { PROBLEM_JSON } from '../../platform/http/problems.js';
import { PerTokenLimit } from '../../platform/http/revocation.js';
import type { Json } from '../../services/index/entry.js';
import { MAX_MCP_REQUESTS_PER_TOKEN } from '../mcp/mount.js';
import { callTool, type HubTool, refusal, scopeRefusal, type ToolOutcome } from '../mcp/tool-call.js';
import { hubToolScope } from '../mcp/tool-scopes.js';
import { emergencyStopTool } from '../mcp/tool-stop.js';
import type { HubMcpDeps } from '../mcp/tools.js';
import { isOwnReplyTopic } from './topics.js';
import type { BusTransport, CommandRequest, RequestVerdict } from './transport.js';

/** MQTT 5 reason codes for problem statuses, where one fits (MQTT 5 §2.4). */
const REASON_CODES: Record<number, number> = {
  400: 0x99, // Payload format invalid
  403: 0x87, // Not authorized
  413: 0x95, // Packet too large
  422: 0x99,
  429: 0x97, // Quota exceeded
  500: 0x80, // Unspecified error
  503: 0x88, // Server unavailable
};

export function reasonCodeOf(status: number): number | undefined {
  return REASON_CODES[status];
}

export interface MqttCommandsOptions {
  kitchenId: string;
  transport: Pick<BusTransport, 'publish'>;
  /** The hub's services; undefined while the hub is not running (then no operation is served). */
  deps: () => HubMcpDeps | undefined;
  /** Base URL of the problem types (the hub's public URL). */
  problemBase: () => string;
  maxInFlight?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string, detail?: Record<string, unknown>) => void;
}

export class MqttCommands {
  private readonly inFlight: PerTokenLimit;
  private answering = new Set<Promise<void>>();
  private tools?: Promise<typeof import('../mcp/tools.js')>;

  constructor(private readonly o: MqttCommandsOptions) {
    this.inFlight = new PerTokenLimit(o.maxInFlight ?? MAX_MCP_REQUESTS_PER_TOKEN);
  }

  /** Settles once every answer under way has been handed to the broker (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.answering.size > 0) await Promise.all([...this.answering]);
  }

  /** The broker's request handler (EmbeddedBroker.onRequest). */
  readonly handle = (req: CommandRequest): RequestVerdict | undefined => {
    const deps = this.o.deps();
    if (!deps || req.operation === 'estop') return undefined;
    const stop = req.operation === 'emergency_stop';
    const principal: Principal = { ...req.principal, kind: req.principal.kind as PrincipalKind };
    const replyOk = req.responseTopic === undefined || isOwnReplyTopic(this.o.kitchenId, req.responseTopic, req.clientId);
    const answer = (o: ToolOutcome) => (replyOk ? this.reply(req, o) : undefined);
    if (!replyOk && !stop) {
      return { ok: false, reason: `the response topic must be svc/${this.o.kitchenId}/reply/${req.clientId} or a topic below it` };
    }
    const scope = stop ? null : hubToolScope(req.operation, { market: deps.market !== undefined, flows: deps.runFlow !== undefined });
    if (scope === undefined) {
      const detail = `the hub has no operation ${JSON.stringify(req.operation.slice(0, 100))}`;
      answer(refusal('not-found', detail));
      return { ok: false, reason: detail };
    }
    const denied = scopeRefusal({ name: req.operation, scope }, principal);
    if (denied) {
      answer(denied);
      return { ok: false, reason: denied.ok ? '' : denied.detail };
    }
    if (stop) this.o.log?.('warn', 'emergency_stop requested over MQTT', { clientId: req.clientId, principal: principal.name });
    // An emergency stop is never turned away by the in-flight cap (it is answered at once anyway).
    const release = this.inFlight.take(principal.id) ?? (stop ? () => {} : undefined);
    if (!release) {
      answer(refusal('rate-limited', `this token already has ${this.inFlight.max} requests being answered`));
      return { ok: true };
    }
    let args: unknown = {};
    const text = req.payload.toString('utf8');
    if (text.trim() !== '') {
      try {
        args = JSON.parse(text);
      } catch {
        if (!stop) {
          release();
          answer(refusal('invalid-json', 'the request payload is not JSON (send the operation’s arguments as a JSON object)'));
          return { ok: true };
        }
        args = text; // the stop reads what it can and warns about the rest
      }
    }
    const operation = req.operation;
    // The stop runs here and now (heat is cut before this returns); any other tool once the tools have loaded.
    const done = (stop ? callTool(emergencyStopTool(deps, 'MQTT'), args, principal) : this.call(deps, operation, args, principal))
      .catch((err: unknown): ToolOutcome => {
        this.o.log?.('error', 'mqtt command failed', { operation, err: String(err) });
        return refusal('internal-error', `the operation ${operation} failed`);
      })
      .then((o) => {
        release();
        return answer(o);
      });
    this.track(done);
    return { ok: true };
  };

  /** Run the hub's tool `operation` (its existence and scope were checked): the tools load on the first call. */
  private async call(deps: HubMcpDeps, operation: string, args: unknown, principal: Principal): Promise<ToolOutcome> {
    this.tools ??= import('../mcp/tools.js');
    const tool: HubTool | undefined = (await this.tools).hubTools(deps, 'MQTT').find((t) => t.name === operation);
    if (!tool) return refusal('not-found', `the hub has no operation ${JSON.stringify(operation.slice(0, 100))}`);
    return callTool(tool, args, principal);
  }

  private track(p: Promise<unknown>): void {
    const settled = p.then(
      () => {},
      () => {},
    );
    this.answering.add(settled);
    void settled.then(() => this.answering.delete(settled));
  }

  /** Publish the answer to the request's response topic (nothing when it did not ask for one). */
  private reply(req: CommandRequest, outcome: ToolOutcome): Promise<void> | undefined {
    if (req.responseTopic === undefined) return undefined;
    let body: Json;
    let status = 200;
    const props: Record<string, string> = {};
    if (outcome.ok) body = outcome.value;
    else {
      const slug: ProblemSlug = isProblemSlug(outcome.error) ? outcome.error : 'internal-error';
      status = problemCatalog[slug].status;
      body = problem(this.o.problemBase(), slug, outcome.detail, outcome.extra as Record<string, unknown>) as unknown as Json;
      const code = reasonCodeOf(status);
      if (code !== undefined) props['reason-code'] = `0x${code.toString(16).padStart(2, '0')}`;
      props.problem = slug;
    }
    props.status = String(status);
    const sent = this.o.transport
      .publish({
        topic: req.responseTopic,
        payload: JSON.stringify(body),
        qos: 1,
        retain: false,
        contentType: outcome.ok ? 'application/json' : PROBLEM_JSON,
        ...(req.correlationData ? { correlationData: req.correlationData } : {}),
        userProperties: props,
      })
      .catch((err: unknown) => this.o.log?.('warn', 'mqtt reply failed', { topic: req.responseTopic, err: String(err) }));
    this.track(sent);
    return sent;
  }
}
