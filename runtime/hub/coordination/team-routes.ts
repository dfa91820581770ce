/**
 * Hub REST for team plans: `POST /svc/v1/team-plans {sessionId, tasks?, actors?, people?}` (`cook`) splits a
 * session's steps among the kitchen's actors and answers the TeamPlan (201, or 200 when the same request had
 * already made it); `GET /svc/v1/team-plans/{id}` (`read`) reads one back. The MCP tool `team_call_for_proposals`
 * calls the same service (runtime/hub/coordination/team.ts).
 */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../platform/http/auth.js';
import { PREFIX } from '../sessions/index.js';
import { type TeamPlanInput, type TeamService, teamPlanInputSchema } from './team.js';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } } as const;

export function registerTeamRoutes(http: FastifyInstance, team: TeamService): void {
  http.post(
    `${PREFIX}/team-plans`,
    { config: { scope: 'cook', idempotency: 'required' }, schema: { body: teamPlanInputSchema } },
    async (req, reply) => {
      const { plan, created } = team.propose(req.body as TeamPlanInput, requirePrincipal(req));
      return reply
        .code(created ? 201 : 200)
        .header('location', `${PREFIX}/team-plans/${plan.id}`)
        .send(plan);
    },
  );
  http.get<{ Params: { id: string } }>(
    `${PREFIX}/team-plans/:id`,
    { config: { scope: 'read' }, schema: { params: idParams } },
    async (req) => team.get(req.params.id),
  );
}
