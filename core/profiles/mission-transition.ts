/** Mission state changes (profiles.md §5), judged against a transition table passed in (schemas/profiles/mission-transitions.json). */

export interface MissionTransitionTable {
  initial?: string;
  final?: readonly string[];
  transitions: readonly { from: string; to: string; roles: readonly string[] }[];
}

/** Check and read a parsed mission-transitions file. Throws an Error saying what is wrong. */
export function parseMissionTable(json: unknown): MissionTransitionTable {
  const doc = json as Record<string, unknown> | null;
  if (typeof doc !== 'object' || doc === null || !Array.isArray(doc.transitions))
    throw new Error('mission transitions: "transitions" must be an array');
  const transitions = doc.transitions.map((t: unknown, i: number) => {
    const e = t as Record<string, unknown> | null;
    const roles = e?.roles ?? e?.allowedRoles;
    if (typeof e?.from !== 'string' || typeof e.to !== 'string' || !Array.isArray(roles) || !roles.every((r) => typeof r === 'string')) {
      throw new Error(`mission transitions: entry ${i} needs from, to and roles[]`);
    }
    return { from: e.from, to: e.to, roles: roles as string[] };
  });
  const out: MissionTransitionTable = { transitions };
  if (typeof doc.initial === 'string') out.initial = doc.initial;
  if (Array.isArray(doc.final)) out.final = doc.final.filter((s): s is string => typeof s === 'string');
  return out;
}

/** True exactly when the table lists `from` → `to` (the last such entry counts) and that entry allows `role`. */
export function missionTransitionAllowed(table: MissionTransitionTable, from: unknown, to: unknown, role: unknown): boolean {
  if (typeof from !== 'string' || typeof to !== 'string' || typeof role !== 'string') return false;
  let entry: { roles: readonly string[] } | undefined;
  for (const t of table.transitions) if (t.from === from && t.to === to) entry = t;
  return entry?.roles.includes(role) === true;
}
