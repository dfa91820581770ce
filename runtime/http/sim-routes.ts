/**
 * The simulated rig's control surface, for tests and demos; mounted only with the simulated rig. It plays
 * the world around the device: a person walking up (presence), faults, the temperature of a vessel, the
 * e-stop button, and, with `--sim-speed manual`, the passing of time. None of it is a way to claim presence
 * to the executor: presence still comes from the rig's input, which this surface moves like a person would.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FAULT_KINDS, type FaultSpec, FaultSpecError } from '../../drivers/sim/faults.js';
import { ProblemError } from '../../platform/http/problems.js';
import type { AppContext } from '../app/context.js';

const ID = { type: 'string', minLength: 1, maxLength: 32 };

/** Largest single clock advance (one simulated day). */
export const MAX_ADVANCE_MS = 24 * 60 * 60 * 1000;

/** Every /sim answer (state or problem) ends with a newline, so `curl` output does not run into the prompt. */
async function endWithNewline(_req: FastifyRequest, _reply: FastifyReply, payload: unknown): Promise<unknown> {
  return typeof payload === 'string' && !payload.endsWith('\n') ? `${payload}\n` : payload;
}

export function registerSimRoutes(ctx: AppContext): void {
  const sim = ctx.rig.sim;
  if (!sim) return;
  const { http } = ctx;
  const state = () => {
    const supervisor = ctx.supervisor.status();
    const snapshot = sim.snapshot();
    // A wire the heat guard cut heats nothing, whatever was last asked of it (its report may still be unread).
    for (const [id, h] of Object.entries(supervisor.heaters)) if (h.wire === 'cut' && id in snapshot.heaters) snapshot.heaters[id] = 0;
    return {
      ...snapshot,
      clock: { now: new Date(ctx.clock.now()).toISOString(), manual: ctx.manualClock !== undefined },
      supervisor,
      activeExecution: ctx.executor.activeId ?? null,
    };
  };
  let advancing: Promise<void> = Promise.resolve();
  const opt = { config: { idempotency: 'optional' as const }, onSend: endWithNewline };

  http.get('/sim/v1/state', { onSend: endWithNewline }, async () => state());

  /** A switch the world flips: a person walking up (presence), the e-stop button. */
  const toggle = (url: string, field: string, flip: (on: boolean) => void) =>
    http.post(
      url,
      {
        ...opt,
        schema: { body: { type: 'object', additionalProperties: false, required: [field], properties: { [field]: { type: 'boolean' } } } },
      },
      async (req) => {
        flip((req.body as Record<string, boolean>)[field] === true);
        return state();
      },
    );
  toggle('/sim/v1/presence', 'present', (p) => sim.setPresence(p));
  toggle('/sim/v1/estop', 'pressed', (p) => sim.pressEstop(p));

  http.post(
    '/sim/v1/faults',
    {
      ...opt,
      schema: {
        body: {
          oneOf: [
            { type: 'object', additionalProperties: false, required: ['clear'], properties: { clear: { const: true } } },
            {
              type: 'object',
              additionalProperties: false,
              required: ['kind', 'target'],
              properties: { kind: { enum: [...FAULT_KINDS] }, target: ID, atMs: { type: 'number', minimum: 0 }, value: { type: 'number' } },
            },
          ],
        },
      },
    },
    async (req) => {
      const body = req.body as FaultSpec | { clear: true };
      if ('clear' in body) sim.clearFaults();
      else {
        try {
          sim.injectFault(body);
        } catch (err) {
          // The rig says which faults it can simulate on what: the rest is the request's mistake, not a 500.
          if (!(err instanceof FaultSpecError)) throw err;
          throw new ProblemError('validation-failed', `body /${err.field}: ${err.message}`, {
            errors: [{ in: 'body', pointer: `/${err.field}`, message: err.message }],
          });
        }
      }
      return state();
    },
  );

  http.post(
    '/sim/v1/temperature',
    {
      ...opt,
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['sensor', 'tempC'],
          properties: { sensor: ID, tempC: { type: 'number', minimum: -50, maximum: 1000 } },
        },
      },
    },
    async (req) => {
      const { sensor, tempC } = req.body as { sensor: string; tempC: number };
      try {
        sim.setTemperature(sensor, tempC);
      } catch (err) {
        throw new ProblemError('validation-failed', `body /sensor: ${(err as Error).message}`);
      }
      return state();
    },
  );

  http.post(
    '/sim/v1/clock',
    {
      ...opt,
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['advanceMs'],
          properties: { advanceMs: { type: 'integer', minimum: 0, maximum: MAX_ADVANCE_MS } },
        },
      },
    },
    async (req) => {
      const manual = ctx.manualClock;
      if (!manual)
        throw new ProblemError('conflict', 'simulated time runs by itself here; start with --sim-speed manual to move it by request');
      // One advance at a time: concurrent requests queue behind each other.
      const run = advancing.then(() => manual.advanceAsync((req.body as { advanceMs: number }).advanceMs));
      advancing = run.catch(() => {});
      await run;
      return state();
    },
  );
}
