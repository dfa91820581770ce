/** The hub's team-plan tool (spec §4.7 `team_call_for_proposals`), on the same service as `POST /svc/v1/team-plans`. */
import type { Json } from '../../services/index/entry.js';
import { type TeamPlanInput, type TeamService, teamPlanInputSchema } from '../hub/coordination/index.js';
import { type HubTool, scopedTool } from './tool-call.js';

export function teamTools(team: TeamService): HubTool[] {
  return [
    scopedTool<TeamPlanInput>(
      'team_call_for_proposals',
      'Split a session’s recipe steps among the kitchen’s actors (the hub’s device, robots and appliances given as capabilities documents in `actors`, and `people` persons of the household, default 1) by capability and time: no actor does two steps at once and a step waits for the steps it takes from. Returns a TeamPlan; each planned step becomes a hub task assigned to its actor. Refused with capability-mismatch when no actor can do a step. `tasks` limits the plan to some steps (<recipeId>#<nodeId>).',
      teamPlanInputSchema,
      (a, p) => team.propose(a, p).plan as Json,
    ),
  ];
}
