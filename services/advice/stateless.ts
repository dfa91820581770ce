/**
 * The index's advice: stateless. The context is the catalog and what the request carries (its own `actors`,
 * capabilities documents, when it names devices); there is no inventory, household, mode or store, so nothing
 * of the request is kept. `personalize` needs personal data and is answered only by a hub.
 */
import { ProblemError } from '../../platform/http/problems.js';
import type { Catalog } from '../index/catalog.js';
import type { Json } from '../index/entry.js';
import { kitchenOf, MatchInputError } from '../index/search/match.js';
import { type AdviceRequest, type AdviceResponse, advise, ask, intentOf } from './index.js';

function actorsOf(body: AdviceRequest | { context?: Json }): Json[] {
  const actors = (body.context as Json | undefined)?.actors;
  if (actors === undefined) return [];
  try {
    kitchenOf({ actors });
  } catch (err) {
    if (err instanceof MatchInputError) throw new ProblemError('validation-failed', `context.${err.message}`);
    throw err;
  }
  return actors as Json[];
}

function refusePersonal(intent: string | undefined): void {
  if (intent && intentOf(intent) === 'personalize')
    throw new ProblemError(
      'policy-deny',
      'personalize needs personal data (ages, weights, allergies): ask your own hub, the index keeps and takes none',
    );
}

export function adviseStateless(catalog: () => Catalog, now: () => Date, body: AdviceRequest): AdviceResponse {
  refusePersonal(body.intent);
  return advise({ planning: { catalog, now, actors: () => actorsOf(body) } }, body, null);
}

export function askStateless(
  catalog: () => Catalog,
  now: () => Date,
  input: { text: string; lang?: string; context?: Json },
): AdviceResponse {
  const ctx = { planning: { catalog, now, actors: () => actorsOf(input) } };
  const r = ask(ctx, input, null);
  refusePersonal(r.intent);
  return r;
}
