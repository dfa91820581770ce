/**
 * The household's standing constraints (minimum verification level, allergens, diets), kept in the hub's settings
 * and applied by every plan, match, advice and session (services/planning/policy.ts). A person's admin token sets
 * them (`PUT /svc/v1/household`); anything with `read` may see them.
 */
import type { Database } from 'better-sqlite3';
import { LEVELS } from '../../../services/index/entry.js';
import type { Household } from '../../../services/planning/context.js';
import { SettingsRepo } from '../store.js';

export const householdSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    minLevel: { enum: [...LEVELS] },
    excludeAllergens: { type: 'array', maxItems: 30, uniqueItems: true, items: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,39}$' } },
    diets: { type: 'array', maxItems: 10, uniqueItems: true, items: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,39}$' } },
  },
} as const;

export class HouseholdStore {
  private readonly settings: SettingsRepo;
  constructor(
    db: Database,
    private readonly now: () => number,
  ) {
    this.settings = new SettingsRepo(db);
  }

  get(): Household & { updatedAt?: string } {
    const raw = this.settings.get('household');
    return raw ? (JSON.parse(raw) as Household & { updatedAt?: string }) : { excludeAllergens: [], diets: [] };
  }

  set(h: Partial<Household>): Household & { updatedAt: string } {
    const v = {
      ...(h.minLevel ? { minLevel: h.minLevel } : {}),
      excludeAllergens: h.excludeAllergens ?? [],
      diets: h.diets ?? [],
      updatedAt: new Date(this.now()).toISOString(),
    };
    this.settings.set('household', JSON.stringify(v));
    return v;
  }
}
