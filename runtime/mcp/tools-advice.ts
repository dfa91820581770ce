import type { AdviceContext, AdviceRequest } from '../../services/advice/index.js';
import { adviceEngine } from '../../services/advice/lazy.js';
import { adviceRequestSchema, applySchema, askSchema } from '../../services/advice/request-schema.js';
import { type HubTool, scopedTool } from './tool-call.js';

const scoped = scopedTool;

export function adviceTools(ctx: AdviceContext): HubTool[] {
  return [
    scoped<AdviceRequest>(
      'advise',
      'Advice for one intent (cook_from, recover, store, feed, personalize) with this kitchen’s inventory, household constraints, devices and mode. Returns an AdviceResponse whose options carry their reasons and evidence.',
      { ...adviceRequestSchema, required: ['intent'] },
      async (a, p) => ({ ...(await adviceEngine()).advise(ctx, a, p) }),
      true,
    ),
    scoped<{ text: string; lang?: string }>(
      'ask',
      'Free text (“what can I cook for 4 with eggs and tomatoes?”, “the chicken was left out since lunch”) mapped onto an advice intent, then answered; refused clearly when the text cannot be placed.',
      askSchema,
      async (a, p) => ({ ...(await adviceEngine()).ask(ctx, a, p) }),
      true,
    ),
    scoped<{ responseId: string; optionId: string; serveAt?: string; mandate?: unknown }>(
      'apply_advice',
      'Turn an option of an earlier advice answer into a planned session. A person confirms it on a paired interface; an agent needs a mandate with plan_meals.',
      applySchema,
      async (a, p) => (await adviceEngine()).applyAdvice(ctx, a, p),
      false,
    ),
  ];
}
