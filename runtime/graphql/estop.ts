/**
 * The `emergencyStop` mutation's work, shared by the resolver (resolvers.ts) and the direct path that runs before
 * GraphQL is loaded (estop-direct.ts): the hub's e-stop service (runtime/hub/safety/safety-routes.ts `emergencyStop`),
 * never refused for its reason (a long one is cut and warned about, as over REST and MCP).
 */
import type { Principal } from '../../platform/http/auth.js';
import { reasonValue } from '../http/stop-body.js';
import { emergencyStop, type SafetyDeps, safetyState, stopSource } from '../hub/safety/index.js';

export interface StopDeps {
  safety: SafetyDeps;
  warn?(message: string): void;
}

export function emergencyStopResult(d: StopDeps, rawReason: unknown, p: Principal) {
  const warnings: string[] = [];
  const reason = reasonValue(rawReason ?? undefined, warnings);
  const trip = emergencyStop(d.safety, reason, stopSource(p, 'GraphQL'));
  if (warnings.length > 0)
    d.warn?.(`emergencyStop by ${p.kind} ${p.name} with a malformed reason (stopped anyway): ${warnings.join('; ')}`);
  return {
    accepted: true,
    action: 'heat_off_all',
    reason: reason ?? null,
    warnings: warnings.length > 0 ? warnings : null,
    safety: safetyState(d.safety),
    trip,
  };
}
