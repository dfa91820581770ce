/**
 * The hub's `emergency_stop` tool, in its own module: the MQTT command topics (runtime/mqtt/commands.ts) hold it
 * from the start, so a stop never waits for the other tools (tools.ts) to load; MCP registers it with the rest.
 */
import { controlActive } from '../../safety/controls.js';
import type { Json } from '../../services/index/entry.js';
import { REASON_MAX, reasonValue } from '../http/stop-body.js';
import { emergencyStop, type SafetyDeps, safetyState, stopSource } from '../hub/safety/index.js';
import { type HubTool, ok } from './tool-call.js';

/** What the stop needs of the hub (a part of HubMcpDeps). */
export interface StopDeps {
  safety: SafetyDeps;
  /** Logs a warning (a malformed emergency_stop); optional. */
  warn?(message: string): void;
}

/** What `emergency_stop` advertises; its arguments are never refused against it (see emergencyStopTool). */
const EMERGENCY_STOP_SCHEMA = {
  type: 'object',
  properties: { reason: { type: 'string', maxLength: REASON_MAX, description: 'Why (optional; recorded with the stop).' } },
};

/**
 * `emergency_stop` {reason} (any paired token): cuts heat everywhere whatever its arguments are. A reason
 * that is not a string, is too long, or comes with other members is a warning in the answer and the log,
 * never a refusal (control `stop-any-body`; without it the arguments are checked against the schema first).
 */
export function emergencyStopTool(d: StopDeps, via: string): HubTool {
  const strict = { type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: REASON_MAX } } };
  const lenient = controlActive('stop-any-body');
  return {
    name: 'emergency_stop',
    description: 'Emergency stop: cut heat everywhere now. Any paired token may call it; its arguments are never a reason to refuse.',
    schema: lenient ? EMERGENCY_STOP_SCHEMA : strict,
    readOnly: false,
    scope: null,
    anyArgs: lenient,
    run: async (args, principal) => {
      const warnings: string[] = [];
      let reason: string | undefined;
      if (args !== undefined && args !== null && typeof args === 'object' && !Array.isArray(args)) {
        const doc = args as Record<string, unknown>;
        const extra = Object.keys(doc).filter((k) => k !== 'reason');
        if (extra.length > 0) warnings.push(`unexpected arguments ignored: ${extra.slice(0, 5).join(', ').slice(0, 200)}`);
        reason = reasonValue(doc.reason, warnings);
      } else if (args !== undefined && args !== null) {
        warnings.push('the arguments are not an object; they were ignored');
      }
      const trip = emergencyStop(d.safety, reason, stopSource(principal, via));
      if (warnings.length > 0)
        d.warn?.(`emergency_stop by ${principal.kind} ${principal.name} with malformed arguments (stopped anyway): ${warnings.join('; ')}`);
      return ok({
        accepted: true,
        action: 'heat_off_all',
        ...(warnings.length > 0 ? { warnings } : {}),
        ...safetyState(d.safety),
        trip,
      } as Json);
    },
  };
}
