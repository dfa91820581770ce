/**
 * Operator topic grants of a token (`hearth token create --mqtt-publish … --mqtt-subscribe …`): MQTT topic filters
 * outside the kitchen's own `svc/` tree on which the token may publish or subscribe, for third-party devices (a
 * smart plug on `devices/plug-1/#`). Pure rules, shared by the token store (which refuses a bad grant when it is
 * created) and the embedded broker (which checks every publish, subscription and delivery against them).
 *
 * A grant never reaches what scopes govern: a filter whose first level is `svc` (the kitchen's topics: safety,
 * state, commands), `homeassistant` (discovery, which needs `read`), `$…` (the broker's own and `$share`), or a
 * wildcard (`+`, `#`: they would match `svc/…`) is refused.
 */

export interface MqttGrants {
  publish: string[];
  subscribe: string[];
}

/** At most this many filters per list, each at most this long. */
export const MAX_GRANT_FILTERS = 32;
export const MAX_GRANT_LENGTH = 200;

/** First topic levels a grant may not start with (besides `$…` and the wildcards). */
export const RESERVED_ROOTS: ReadonlySet<string> = new Set(['svc', 'homeassistant']);

/** Why `filter` cannot be a grant, or undefined when it can. */
export function grantProblem(filter: string): string | undefined {
  if (filter === '') return 'an empty topic filter';
  if (filter.length > MAX_GRANT_LENGTH) return `longer than ${MAX_GRANT_LENGTH} characters`;
  if (filter.includes(String.fromCharCode(0))) return 'a NUL character';
  const levels = filter.split('/');
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i] as string;
    if (l.includes('#') && (l !== '#' || i !== levels.length - 1)) return "'#' must be a whole level, and the last one";
    if (l.includes('+') && l !== '+') return "'+' must be a whole level";
  }
  const root = levels[0] as string;
  if (root === '+' || root === '#') return 'a wildcard first level would reach svc/… (start with a fixed level, e.g. devices/…)';
  if (root.startsWith('$')) return 'topics starting with $ belong to the broker';
  if (RESERVED_ROOTS.has(root)) return `${root}/… is governed by the token's scopes, not by grants`;
  return undefined;
}

/** Parse a comma-separated list of grant filters; throws one line naming the first bad filter. */
export function parseGrantList(list: string | readonly string[] | undefined, what: string): string[] {
  if (list === undefined) return [];
  const items = (typeof list === 'string' ? list.split(',') : [...list]).map((s) => String(s).trim()).filter((s) => s !== '');
  const unique = [...new Set(items)];
  if (unique.length > MAX_GRANT_FILTERS) throw new Error(`${what}: at most ${MAX_GRANT_FILTERS} topic filters`);
  for (const f of unique) {
    const problem = grantProblem(f);
    if (problem) throw new Error(`${what} ${JSON.stringify(f.slice(0, 80))} refused: ${problem}`);
  }
  return unique;
}

/** Does topic filter `filter` match topic name `topic` (MQTT 5.0 §4.7)? */
export function filterMatches(filter: string, topic: string): boolean {
  if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) return false;
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    const l = f[i];
    if (l === '#') return true;
    if (i >= t.length) return false;
    if (l !== '+' && l !== t[i]) return false;
  }
  return f.length === t.length;
}

/** Does grant filter `grant` cover every topic that subscription filter `filter` can match? */
export function filterCovers(grant: string, filter: string): boolean {
  const g = grant.split('/');
  const f = filter.split('/');
  for (let i = 0; i < g.length; i++) {
    const l = g[i];
    if (l === '#') return true;
    if (i >= f.length) return false;
    const x = f[i];
    if (x === '#') return false;
    if (l === '+') continue;
    if (x === '+' || x !== l) return false;
  }
  return g.length === f.length;
}

/** May a holder of `grants` publish on `topic`? Only a valid grant counts (a stored bad one is ignored). */
export function grantsPublish(grants: MqttGrants | undefined, topic: string): boolean {
  return (
    !!grants && grantProblem(topic) === undefined && grants.publish.some((g) => grantProblem(g) === undefined && filterMatches(g, topic))
  );
}

/** May a holder of `grants` subscribe with `filter` (every topic it matches is granted)? */
export function grantsSubscribe(grants: MqttGrants | undefined, filter: string): boolean {
  return (
    !!grants && grantProblem(filter) === undefined && grants.subscribe.some((g) => grantProblem(g) === undefined && filterCovers(g, filter))
  );
}

/** May a holder of `grants` receive a message on `topic`? */
export function grantsReceive(grants: MqttGrants | undefined, topic: string): boolean {
  return (
    !!grants && grantProblem(topic) === undefined && grants.subscribe.some((g) => grantProblem(g) === undefined && filterMatches(g, topic))
  );
}
