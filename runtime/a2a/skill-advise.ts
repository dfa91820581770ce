/**
 * advise: an AdviceRequest answered with this kitchen's inventory, household, devices and mode, by the same
 * function as `POST /svc/v1/advise/{intent}` and the MCP tool `advise` (services/advice `advise`). The answer is
 * kept for `apply` as over REST; applying an option stays REST/MCP's `apply_advice` (a person confirms).
 */
import type { AdviceRequest } from '../../services/advice/index.js';
import { adviceEngine } from '../../services/advice/lazy.js';
import { adviceRequestSchema } from '../../services/advice/request-schema.js';
import { INTENTS } from '../../services/advice/types.js';
import type { Json } from '../../services/index/entry.js';
import { defineSkill, toolScopes } from './define.js';

export const advise = defineSkill<AdviceRequest & { intent: string }>({
  id: 'advise',
  name: 'Kitchen advice',
  description: `Advice for one intent (${INTENTS.join(', ')}) with this kitchen’s inventory, household constraints, devices and mode: options with their reasons, evidence and a safety verdict. Needs the scope read.`,
  tags: ['advice', 'planning', 'food-safety'],
  examples: ['{"skill":"advise","input":{"intent":"feed","query":{"people":4}}}'],
  usage: `{intent: ${INTENTS.join(' | ')}, query?, context?}`,
  scopes: toolScopes('advise'),
  input: { ...adviceRequestSchema, required: ['intent'] },
  async perform(d, a, p) {
    const r = (await adviceEngine()).advise(d.advice, a, p);
    return {
      kind: 'done',
      summary: `Advice ${r.responseId} (${r.intent}): ${r.status}, ${r.options.length} option${r.options.length === 1 ? '' : 's'}, safety ${r.safety.verdict}.`,
      data: r as unknown as Json,
    };
  },
});
