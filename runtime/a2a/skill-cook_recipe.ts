/**
 * cook_recipe: confirm (an agent only prepares it: the task waits for a person), then start (a person must be
 * sensed at the appliance) and follow the session until it ends. Sent again on the same task once a person
 * has confirmed, it starts.
 */
import type { Json } from '../../services/index/entry.js';
import { rulesSchema } from '../hub/sessions/index.js';
import type { Session } from '../hub/types.js';
import { defineSkill, toolScopes } from './define.js';

interface CookInput {
  sessionId: string;
  acknowledgedRules?: string[];
}

const sessionData = (s: Session): Json => ({ session: s as unknown as Json });

export const cookRecipe = defineSkill<CookInput>({
  id: 'cook_recipe',
  name: 'Cook a recipe',
  description:
    'Drive a planned session on the kitchen’s devices: a person confirms it and must be sensed present for heat; the task follows the session to its end. Needs the scope cook.',
  tags: ['cooking', 'executor'],
  examples: ['{"skill":"cook_recipe","input":{"sessionId":"ses-…","acknowledgedRules":["…"]}}'],
  usage: '{sessionId, acknowledgedRules?}',
  scopes: toolScopes('confirm_session', 'start_session'),
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['sessionId'],
    properties: { sessionId: { type: 'string', minLength: 1, maxLength: 100 }, acknowledgedRules: rulesSchema },
  },
  perform(d, a, p) {
    let s = d.sessions.get(a.sessionId);
    if (s.state === 'running' || s.state === 'paused') {
      return { kind: 'follow', summary: `Session ${s.id} is ${s.state}; following it.`, data: sessionData(s), sessionId: s.id };
    }
    if (!s.confirmation.confirmedBy || s.state !== 'planned') {
      const r = d.sessions.confirm(s.id, a.acknowledgedRules ?? s.confirmation.acknowledgedRules, p);
      s = r.session;
      if (!r.completed) {
        return {
          kind: 'input',
          summary: `A person must confirm session ${s.id} on a paired interface (hub task ${r.task?.id ?? 'open'}); an agent can only prepare it. Then send cook_recipe {sessionId} again on this task.`,
          data: { ...sessionData(s), ...(r.task ? { task: r.task as unknown as Json } : {}) },
          sessionId: s.id,
        };
      }
    }
    s = d.sessions.start(s.id, p);
    return { kind: 'follow', summary: `Session ${s.id} started.`, data: sessionData(s), sessionId: s.id };
  },
});
