/**
 * The hub's advice tools (spec §4.7), without a transport (tool-call.ts): `advise` (read) AdviceRequest →
 * AdviceResponse with the hub's full context, `ask` (any token) free text → AdviceResponse, `apply_advice`
 * (cook) {responseId, optionId} → a planned session (a person confirms it; an agent needs a mandate with
 * `plan_meals`). The same service functions answer the REST routes.
 */
import type { Principal } from '../../platform/http/auth.js';
import { ProblemError } from '../../platform/http/problems.js';
import { type AdviceContext, type AdviceRequest, advise, applyAdvice, ask } from '../../services/advice/index.js';
import { adviceRequestSchema, applySchema, askSchema } from '../../services/advice/request-schema.js';
import type { Json } from '../../services/index/entry.js';
import { type HubTool, ok, refusal, scopeRefusal } from './tool-call.js';
import { TOOL_SCOPES } from './tool-scopes.js';

function scoped<A>(
  name: string,
  description: string,
  schema: Record<string, unknown>,
  fn: (a: A, p: Principal) => Json,
  readOnly: boolean,
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
        return ok(fn(args as A, p));
      } catch (err) {
        if (err instanceof ProblemError) return refusal(err.slug, err.detail ?? err.slug, err.extensions as Json);
        throw err;
      }
    },
  };
  return self;
}

export function adviceTools(ctx: AdviceContext): HubTool[] {
  return [
    scoped<AdviceRequest>(
      'advise',
      'Advice for one intent (cook_from, recover, store, feed, personalize) with this kitchen’s inventory, household constraints, devices and mode. Returns an AdviceResponse whose options carry their reasons and evidence.',
      { ...adviceRequestSchema, required: ['intent'] },
      (a, p) => ({ ...advise(ctx, a, p) }),
      true,
    ),
    scoped<{ text: string; lang?: string }>(
      'ask',
      'Free text (“what can I cook for 4 with eggs and tomatoes?”, “the chicken was left out since lunch”) mapped onto an advice intent, then answered; refused clearly when the text cannot be placed.',
      askSchema,
      (a, p) => ({ ...ask(ctx, a, p) }),
      true,
    ),
    scoped<{ responseId: string; optionId: string; serveAt?: string; mandate?: unknown }>(
      'apply_advice',
      'Turn an option of an earlier advice answer into a planned session. A person confirms it on a paired interface; an agent needs a mandate with plan_meals.',
      applySchema,
      (a, p) => applyAdvice(ctx, a, p),
      false,
    ),
  ];
}
