/**
 * Hub REST for planning: `POST /svc/v1/plan-preview` (`read`; the MCP tool `plan_preview`) and the household's
 * standing constraints, `GET /svc/v1/household` (`read`) and `PUT /svc/v1/household` (`admin`, a person's token).
 */
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../../../platform/http/problems.js';
import type { Household, PlanningContext } from '../../../services/planning/context.js';
import { type PreviewInput, previewPlan } from '../../../services/planning/plan.js';
import { type HouseholdStore, householdSchema } from '../kitchen/index.js';
import { PREFIX } from '../sessions/index.js';

export const planPreviewSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['recipeId'],
  properties: {
    recipeId: { type: 'string', minLength: 1, maxLength: 100 },
    scale: { type: 'number', exclusiveMinimum: 0, maximum: 20 },
    servings: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
    serveAt: { type: 'string', format: 'date-time', maxLength: 40 },
    actors: { type: 'array', maxItems: 20, items: { type: 'object', maxProperties: 40 } },
  },
} as const;

export function registerPlanningRoutes(http: FastifyInstance, ctx: PlanningContext, household: HouseholdStore): void {
  http.post(
    `${PREFIX}/plan-preview`,
    { config: { scope: 'read', idempotency: 'optional' }, schema: { body: planPreviewSchema } },
    async (req) => previewPlan(ctx, req.body as PreviewInput),
  );
  http.get(`${PREFIX}/household`, { config: { scope: 'read' } }, async () => household.get());
  http.put(
    `${PREFIX}/household`,
    { config: { scope: 'admin', idempotency: 'optional' }, schema: { body: householdSchema } },
    async (req) => {
      if (req.principal?.kind !== 'human')
        throw new ProblemError('not-human-approver', 'only a person’s token can change the household’s constraints');
      return household.set(req.body as Partial<Household>);
    },
  );
}
