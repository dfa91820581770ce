/**
 * team_plan: a session's recipe steps split among the kitchen's actors by capability and time, by the same
 * service as `POST /svc/v1/team-plans` and the MCP tool `team_call_for_proposals` (runtime/hub/coordination/team.ts): the
 * TeamPlan comes back as the artifact, each planned step becomes a hub task assigned to its actor, and a step no
 * actor can do is refused with capability-mismatch.
 */
import type { Json } from '../../services/index/entry.js';
import { type TeamPlanInput, teamPlanInputSchema } from '../hub/coordination/index.js';
import { defineSkill, toolScopes } from './define.js';

export const teamPlan = defineSkill<TeamPlanInput>({
  id: 'team_plan',
  name: 'Team plan',
  description:
    'Split a session’s recipe steps among the kitchen’s actors (the hub’s device, robots and appliances given as capabilities documents, and the people at hand) by capability and time; returns a TeamPlan and assigns each step’s hub task to its actor. Refused with capability-mismatch when no actor can do a step. Needs the scope cook.',
  tags: ['planning', 'robots', 'team'],
  examples: [
    '{"skill":"team_plan","input":{"sessionId":"ses-…","people":1,"actors":[{"actor":{"kind":"robot","id":"robot:arm-1"},"capabilities":{"ops":[{"op":"cw.op.cut"}]}}]}}',
  ],
  usage: '{sessionId, tasks?: [<recipeId>#<nodeId>], actors?: [capabilities documents], people?}',
  scopes: toolScopes('team_call_for_proposals'),
  input: teamPlanInputSchema,
  perform(d, a, p) {
    const { plan } = d.team.propose(a, p);
    const assignments = plan.assignments as { actorId: string; tasks: unknown[] }[];
    return {
      kind: 'done',
      summary: `Team plan ${plan.id} for session ${plan.sessionId}: ${assignments.map((x) => `${x.actorId} ${x.tasks.length} step${x.tasks.length === 1 ? '' : 's'}`).join(', ')}; makespan ${String(plan.makespan)}.`,
      data: plan as Json,
    };
  },
});
