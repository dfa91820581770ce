/** plan_meal: the recipes named (or the best search hit), dry-run on this kitchen, and a planned session. */
import { ProblemError } from '../../platform/http/problems.js';
import type { Json } from '../../services/index/entry.js';
import { previewPlan } from '../../services/planning/plan.js';
import { createSessionSchema } from '../hub/sessions/index.js';
import { defineSkill, toolScopes } from './define.js';

interface PlanInput {
  recipes?: { recipeId: string; servings?: number }[];
  query?: string;
  serveAt: string;
  mode?: string;
}

export const planMeal = defineSkill<PlanInput>({
  id: 'plan_meal',
  name: 'Plan a meal',
  description: 'Pick recipes this kitchen can cook, dry-run them and create a session for a serving time. Needs the scopes read and cook.',
  tags: ['planning', 'sessions'],
  examples: ['{"skill":"plan_meal","input":{"query":"fried onions","serveAt":"2026-06-01T19:00:00+02:00"}}'],
  usage: '{serveAt, recipes?: [{recipeId, servings?}], query?, mode?}',
  scopes: toolScopes('plan_preview', 'create_session'),
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['serveAt'],
    properties: {
      recipes: createSessionSchema.properties.recipes,
      query: { type: 'string', minLength: 1, maxLength: 200 },
      serveAt: createSessionSchema.properties.serveAt,
      mode: createSessionSchema.properties.mode,
    },
  },
  perform(d, a, p) {
    const cat = d.catalog();
    let recipes = a.recipes;
    if (!recipes) {
      if (!a.query) throw new ProblemError('validation-failed', 'plan_meal: give recipes or a query');
      const hit = cat.search.search({ q: a.query, limit: 1 }).items[0];
      if (!hit) throw new ProblemError('not-found', `no recipe on this hub matches ${JSON.stringify(a.query)}`);
      recipes = [{ recipeId: hit.id }];
    }
    // The plan preview of MCP's plan_preview and POST /svc/v1/plan-preview: scaled, dry-run, stock, household, mode.
    const previews = recipes.map((r) =>
      previewPlan(d.planning, {
        recipeId: r.recipeId,
        serveAt: a.serveAt,
        ...(r.servings !== undefined ? { servings: r.servings } : {}),
      }),
    );
    const session = d.sessions.create({ recipes, serveAt: a.serveAt, mode: a.mode ?? 'assisted' }, p);
    const rules = session.confirmation.requiredRules;
    return {
      kind: 'done',
      summary: `Planned session ${session.id} (${recipes.map((r) => r.recipeId).join(', ')}) for ${a.serveAt}. To cook it, send cook_recipe {sessionId}${rules.length > 0 ? ` with acknowledgedRules ${rules.join(', ')}` : ''}; a person confirms it.`,
      data: { session: session as unknown as Json, previews },
    };
  },
});
