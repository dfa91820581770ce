/**
 * What a household may tell a recipient (profiles.md §4): facets never travel, travel as derived constraint
 * types the recipient's role may receive, or travel under an active consent. Facet values are never read.
 */

export interface FacetEntry {
  id: string;
  family: string;
  travel: 'never' | 'derived' | 'consented';
  derivesTo?: readonly string[];
}

export interface DisclosureData {
  facets: ReadonlyMap<string, FacetEntry>;
  roles: Readonly<Record<string, readonly string[]>>;
}

export interface DisclosureDecision {
  constraints: { type: string; derivedFrom: string[] }[];
  disclosed: string[];
  withheld: { facet: string; reason: 'unknown_facet' | 'never_travels' | 'no_consent' | 'not_allowed_for_role' }[];
}

type Doc = Record<string, unknown>;

function isObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Build the lookup from parsed schemas/profiles/facets.json and recipient-roles.json. Throws on a bad file. */
export function parseDisclosureData(facetsJson: unknown, rolesJson: unknown): DisclosureData {
  const list = isObject(facetsJson) ? (facetsJson.facets ?? facetsJson.entries) : undefined;
  if (!Array.isArray(list)) throw new Error('facets: "facets" must be an array');
  const facets = new Map<string, FacetEntry>();
  for (const e of list) {
    if (
      !isObject(e) ||
      typeof e.id !== 'string' ||
      typeof e.family !== 'string' ||
      !['never', 'derived', 'consented'].includes(e.travel as string)
    ) {
      throw new Error(`facets: bad entry ${JSON.stringify(e)?.slice(0, 80)}`);
    }
    const entry: FacetEntry = { id: e.id, family: e.family, travel: e.travel as FacetEntry['travel'] };
    if (Array.isArray(e.derivesTo)) entry.derivesTo = e.derivesTo.filter((x): x is string => typeof x === 'string');
    facets.set(e.id, entry);
  }
  if (!isObject(rolesJson) || !isObject(rolesJson.roles)) throw new Error('recipient roles: "roles" must be an object');
  const roles: Record<string, readonly string[]> = {};
  for (const [role, types] of Object.entries(rolesJson.roles)) {
    if (!Array.isArray(types)) throw new Error(`recipient roles: ${role} must list constraint types`);
    roles[role] = types.filter((x): x is string => typeof x === 'string');
  }
  return { facets, roles };
}

export function decideDisclosure(
  input: { facets: readonly unknown[]; recipientRole: unknown; consents?: readonly unknown[] },
  data: DisclosureData,
): DisclosureDecision {
  const role = typeof input.recipientRole === 'string' ? input.recipientRole : '';
  const allowed = new Set(Object.hasOwn(data.roles, role) ? data.roles[role] : []);
  const active = (Array.isArray(input.consents) ? input.consents : []).filter(
    (c): c is Doc =>
      isObject(c) && c.recipientRole === role && (c.withdrawnAt === undefined || c.withdrawnAt === null || c.withdrawnAt === ''),
  );
  const consented = (entry: FacetEntry) =>
    active.some((c) => {
      const scope = isObject(c.scope) ? c.scope : {};
      return (
        (Array.isArray(scope.facets) && scope.facets.includes(entry.id)) ||
        (Array.isArray(scope.families) && scope.families.includes(entry.family))
      );
    });
  const byType = new Map<string, string[]>();
  const out: DisclosureDecision = { constraints: [], disclosed: [], withheld: [] };
  for (const f of Array.isArray(input.facets) ? input.facets : []) {
    const id = isObject(f) ? f.facet : undefined;
    const entry = typeof id === 'string' ? data.facets.get(id) : undefined;
    const facetId = typeof id === 'string' ? id : String(id);
    if (!entry) {
      out.withheld.push({ facet: facetId, reason: 'unknown_facet' });
    } else if (entry.travel === 'never') {
      out.withheld.push({ facet: facetId, reason: 'never_travels' });
    } else if (entry.travel === 'consented') {
      if (consented(entry)) out.disclosed.push(facetId);
      else out.withheld.push({ facet: facetId, reason: 'no_consent' });
    } else {
      const types = (entry.derivesTo ?? []).filter((t) => allowed.has(t));
      if (types.length === 0) {
        out.withheld.push({ facet: facetId, reason: 'not_allowed_for_role' });
        continue;
      }
      for (const t of types) {
        let from = byType.get(t);
        if (!from) {
          from = [];
          byType.set(t, from);
          out.constraints.push({ type: t, derivedFrom: from });
        }
        if (!from.includes(facetId)) from.push(facetId);
      }
    }
  }
  return out;
}
