/**
 * `PUT` and `POST /v1/safety-limits`: the one HTTP path that tries to change the limits, and it never does.
 * Any valid token may try. A proposal that would loosen a limit in force (a higher max, a lower min, a weaker
 * action, a limit left narrower) goes to the supervisor's attemptLimitChange, which refuses it, logs it and
 * emits a `safety` event `limit_raise_refused`; the answer is 403 `limit-raise-refused` naming what it would
 * have raised. A proposal that only tightens is not applied over the API either (409): the device takes its
 * limits from its configuration (`--limits`). A body that is not a limits pack is 422.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import type { SafetyLimits } from '../../safety/types.js';
import { reviewLimitChange } from './limit-change.js';
import type { Supervisor } from './supervisor.js';

export interface LimitRouteDeps {
  supervisor: Pick<Supervisor, 'attemptLimitChange'>;
  /** The limit sets in force (the device's own, then the default pack). */
  limitSets: () => SafetyLimits[];
}

function isPack(body: unknown): body is SafetyLimits {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    Array.isArray((body as { limits?: unknown }).limits) &&
    (body as { limits: unknown[] }).limits.every(
      (l) => typeof l === 'object' && l !== null && typeof (l as { id?: unknown }).id === 'string',
    )
  );
}

export function registerLimitRoutes(http: FastifyInstance, d: LimitRouteDeps): void {
  const handler = async (req: FastifyRequest) => {
    const principal = requirePrincipal(req);
    if (!isPack(req.body)) {
      throw new ProblemError('validation-failed', 'body: a SafetyLimits pack needs limits[] with an id each', {
        errors: [{ in: 'body', pointer: '/limits', message: 'must be an array of limits with an id each' }],
      });
    }
    const review = reviewLimitChange(d.limitSets(), req.body);
    if (!review.ok) {
      const result = d.supervisor.attemptLimitChange(req.body, `${principal.kind} ${principal.name} over HTTP`);
      if (!result.accepted) {
        throw new ProblemError('limit-raise-refused', `no request can raise a safety limit; this one would loosen ${review.message}`, {
          raised: result.refused ?? review.raised,
        });
      }
    }
    throw new ProblemError(
      'conflict',
      'the limits in force come from the device configuration (--limits) and are not changed over the API; a tighter pack goes in that file',
    );
  };
  http.put('/v1/safety-limits', { config: { idempotency: 'optional' } }, handler);
  http.post('/v1/safety-limits', { config: { idempotency: 'optional' } }, handler);
}
