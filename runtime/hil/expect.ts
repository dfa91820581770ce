/**
 * Check a scenario's expectations against what the run recorded: outputs (state, outcome, trip, status, log,
 * safety state, bus events, grants, HTTP answers, highest readings) and timings (heat off within a bound of
 * the fault, the execution final within a bound, no heat between two moments, the watchdog's cut). Outputs and
 * temperatures are physical where the rig lets us see them: the duty the simulated outputs carry and the true
 * temperature of the simulated contents, never a component's own record that it acted.
 *
 * Expected values match by subset: an object lists the fields that must match, an array lists elements that
 * must each match some actual element (an empty array: there must be none), and a string written as `/regex/`
 * matches by regular expression.
 */

import { firstTrip, type Observations } from './observe.js';
import { type Duration, type Expectation, ms } from './scenario.js';

/** A bound the scenario checked, with what was measured against it (the JUnit failure and the reports show these). */
export interface Bound {
  /** The expectation: `heatOff`, `tripWithin`, `stopWithin`, `watchdog`, `crossing`, `maxTempC/oil`, `state`, … */
  check: string;
  /** The bound as the scenario states it (`≤ 250 ms after fault`, `≤ 185 °C`, `"stopped"`). */
  bound: string;
  /** What the run measured (`250 ms`, `181.2 °C`, `"stopped"`); absent when nothing was measured. */
  measured?: string;
  ok: boolean;
}

export interface Figures {
  heatOffMs?: number;
  stopMs?: number;
  watchdogOffMs?: number;
  crossingOffMs?: number;
  tripMs?: number;
}

function isRegex(v: unknown): v is string {
  return typeof v === 'string' && v.length >= 2 && v.startsWith('/') && v.endsWith('/');
}

/** Mismatches of `actual` against `expected` (empty when it matches). */
export function mismatches(actual: unknown, expected: unknown, path = ''): string[] {
  const at = path || '/';
  if (expected === null) return actual === null || actual === undefined ? [] : [`${at}: expected none, got ${show(actual)}`];
  if (isRegex(expected)) {
    if (actual === undefined) return [`${at}: missing (expected ${expected})`];
    return new RegExp(expected.slice(1, -1)).test(typeof actual === 'string' ? actual : JSON.stringify(actual))
      ? []
      : [`${at}: ${show(actual)} does not match ${expected}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: expected an array, got ${show(actual)}`];
    if (expected.length === 0 && actual.length > 0) return [`${at}: expected none, got ${show(actual)}`];
    return expected.flatMap((e, i) =>
      actual.some((a) => mismatches(a, e).length === 0) ? [] : [`${at}[${i}]: nothing matches ${show(e)} in ${show(actual)}`],
    );
  }
  if (typeof expected === 'object') {
    if (typeof actual !== 'object' || actual === null) return [`${at}: expected an object, got ${show(actual)}`];
    return Object.entries(expected as Record<string, unknown>).flatMap(([k, v]) =>
      mismatches((actual as Record<string, unknown>)[k], v, `${path}/${k}`),
    );
  }
  return actual === expected ? [] : [`${at}: expected ${show(expected)}, got ${show(actual)}`];
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? 'nothing' : s.length > 240 ? `${s.slice(0, 240)}…` : s;
}

function moment(obs: Observations, label: string | undefined, what: string, fails: string[]): number | undefined {
  const name = label ?? 'fault';
  const t = obs.labels.get(name);
  if (t === undefined) fails.push(`${what}: the moment "${name}" never happened`);
  return t;
}

/** Power of each heater at time t (the last sample at or before t). */
function powersAt(obs: Observations, t: number): Record<string, number> {
  let last: Record<string, number> = {};
  for (const p of obs.powers) {
    if (p.t > t) break;
    last = p.heaters;
  }
  return last;
}

export function evaluate(e: Expectation, obs: Observations): { failures: string[]; figures: Figures; bounds: Bound[] } {
  const fails: string[] = [];
  const figures: Figures = {};
  const bounds: Bound[] = [];
  const addBound = (check: string, b: string, measured: string | undefined, before: number) =>
    bounds.push({ check, bound: b, ...(measured !== undefined ? { measured } : {}), ok: fails.length === before });
  const outputs = (check: string, actual: unknown, expected: unknown) => {
    const before = fails.length;
    fails.push(...mismatches(actual, expected, check));
    addBound(check, show(expected), show(actual), before);
  };
  const status = obs.status ?? {};
  if (e.state !== undefined) outputs('state', status.state, e.state);
  if (e.outcome !== undefined) outputs('outcome', obs.log?.outcome, e.outcome);
  if (e.refusal !== undefined) outputs('refusal', status.refusal, e.refusal);
  if (e.trip !== undefined) outputs('trip', firstTrip(obs), e.trip);
  if (e.status) fails.push(...mismatches(status, e.status, 'status'));
  if (e.log) fails.push(...mismatches(obs.log, e.log, 'log'));
  if (e.safety) fails.push(...mismatches(obs.safety, e.safety, 'safety'));
  if (e.bus) fails.push(...mismatches(obs.bus, e.bus, 'bus'));
  if (e.grants) fails.push(...mismatches(obs.grants, e.grants, 'grants'));
  if (e.http) fails.push(...mismatches(obs.http, e.http, 'http'));
  for (const [sensor, max] of Object.entries(e.maxTempC ?? {})) {
    const seen = obs.maxTempC[sensor];
    const before = fails.length;
    if (seen === undefined) fails.push(`maxTempC/${sensor}: no reading seen`);
    else if (seen > max) fails.push(`maxTempC/${sensor}: read ${seen} °C, above ${max} °C`);
    addBound(`maxTempC/${sensor}`, `≤ ${max} °C read`, seen === undefined ? undefined : `${seen} °C`, before);
  }
  for (const [id, max] of Object.entries(e.trueMaxTempC ?? {})) {
    const seen = obs.trueMaxC[id];
    const before = fails.length;
    if (seen === undefined) fails.push(`trueMaxTempC/${id}: no true temperature (the rig is not simulated)`);
    else if (seen > max) fails.push(`trueMaxTempC/${id}: the contents reached ${seen} °C, above ${max} °C`);
    addBound(`trueMaxTempC/${id}`, `≤ ${max} °C true`, seen === undefined ? undefined : `${seen} °C`, before);
  }
  if (e.heatOff) {
    const before = fails.length;
    const from = moment(obs, e.heatOff.from, 'heatOff', fails);
    if (from !== undefined) {
      const after = obs.powers.filter((p) => p.t >= from);
      const offAt = after.find((p) => Object.entries(p.heaters).every(([h, v]) => v === 0 || !(e.heatOff?.heaters ?? [h]).includes(h)));
      if (!offAt) fails.push(`heatOff: the heaters were never all off after "${e.heatOff.from ?? 'fault'}"`);
      else {
        figures.heatOffMs = offAt.t - from;
        if (figures.heatOffMs > e.heatOff.withinMs)
          fails.push(`heatOff: heat went off ${figures.heatOffMs} ms after "${e.heatOff.from ?? 'fault'}", bound ${e.heatOff.withinMs} ms`);
        const reset = obs.labels.get(e.heatOff.until ?? 'reset');
        const backOn = after.find(
          (p) => p.t > offAt.t && (reset === undefined || p.t < reset) && Object.values(p.heaters).some((v) => v > 0),
        );
        if (backOn) fails.push(`heatOff: a heater was on again at +${backOn.t - from} ms (${show(backOn.heaters)})`);
      }
    }
    const off = figures.heatOffMs;
    addBound(
      'heatOff',
      `heat off ≤ ${e.heatOff.withinMs} ms after "${e.heatOff.from ?? 'fault'}"`,
      off === undefined ? undefined : `${off} ms`,
      before,
    );
  }
  if (e.tripWithin) {
    const before = fails.length;
    const from = moment(obs, e.tripWithin.from, 'tripWithin', fails);
    const trip = obs.bus.find((b) => b.name === 'safety' && (b.payload.kind === 'trip' || b.payload.kind === 'estop'));
    if (from !== undefined) {
      if (!trip) fails.push('tripWithin: no trip');
      else {
        figures.tripMs = trip.t - from;
        const bound = ms(e.tripWithin.within as Duration);
        if (figures.tripMs > bound) fails.push(`tripWithin: tripped ${figures.tripMs} ms after the fault, bound ${bound} ms`);
      }
    }
    const t = figures.tripMs;
    addBound(
      'tripWithin',
      `trip ≤ ${ms(e.tripWithin.within as Duration)} ms after "${e.tripWithin.from ?? 'fault'}"`,
      t === undefined ? undefined : `${t} ms`,
      before,
    );
  }
  if (e.stopWithin) {
    const before = fails.length;
    const from = moment(obs, e.stopWithin.from, 'stopWithin', fails);
    if (from !== undefined) {
      if (obs.finalAt === undefined) fails.push('stopWithin: the execution never reached a final state');
      else {
        figures.stopMs = obs.finalAt - from;
        const bound = ms(e.stopWithin.within as Duration);
        if (figures.stopMs > bound) fails.push(`stopWithin: final ${figures.stopMs} ms after the fault, bound ${bound} ms`);
      }
    }
    const f = figures.stopMs;
    addBound(
      'stopWithin',
      `final ≤ ${ms(e.stopWithin.within as Duration)} ms after "${e.stopWithin.from ?? 'fault'}"`,
      f === undefined ? undefined : `${f} ms`,
      before,
    );
  }
  for (const w of e.noHeatBetween ?? []) {
    const before = fails.length;
    const from = moment(obs, w.from, 'noHeatBetween', fails);
    const to = w.to === undefined ? Number.POSITIVE_INFINITY : moment(obs, w.to, 'noHeatBetween', fails);
    if (from === undefined || to === undefined) continue;
    const start = from + (w.graceMs ?? 0);
    const on = [{ t: start, heaters: powersAt(obs, start) }, ...obs.powers.filter((p) => p.t > start && p.t < to)].find((p) =>
      Object.values(p.heaters).some((v) => v > 0),
    );
    if (on) fails.push(`noHeatBetween ${w.from}..${w.to ?? 'end'}: heat on at +${on.t - from} ms (${show(on.heaters)})`);
    addBound(`noHeatBetween ${w.from}..${w.to ?? 'end'}`, 'no heater on', on ? `on at +${on.t - from} ms` : 'none on', before);
  }
  if (e.watchdog) {
    const before = fails.length;
    figures.watchdogOffMs = obs.watchdogOffMs;
    const stall = obs.stalls[0];
    if (!stall) fails.push('watchdog: no stall happened');
    else if (Object.keys(stall.onAtStart).length === 0)
      fails.push('watchdog: no output was on when the stall began, so the cut proves nothing');
    else if (stall.offAfterMs === undefined)
      fails.push(`watchdog: the outputs were still physically on when the stall ended (${show(stall.onAtStart)} at its start)`);
    else if (stall.offAfterMs > e.watchdog.offWithinMs)
      fails.push(
        `watchdog: outputs physically off ${Math.round(stall.offAfterMs)} ms after the stall began, bound ${e.watchdog.offWithinMs} ms`,
      );
    const w = stall?.offAfterMs;
    addBound(
      'watchdog',
      `outputs off ≤ ${e.watchdog.offWithinMs} ms (real) after a stall`,
      w === undefined ? undefined : `${Math.round(w)} ms`,
      before,
    );
  }
  if (e.crossing) {
    const before = fails.length;
    const c = e.crossing;
    const first = obs.readings.find((r) => r.sensor === c.sensor && r.tempC > c.aboveC);
    if (!first) fails.push(`crossing: ${c.sensor} never read above ${c.aboveC} °C`);
    else {
      const off = obs.powers.find((p) => p.t >= first.t && Object.values(p.heaters).every((v) => v === 0));
      if (!off) fails.push(`crossing: heat never went off after ${c.sensor} read ${first.tempC} °C`);
      else {
        figures.crossingOffMs = off.t - first.t;
        if (figures.crossingOffMs > c.heatOffWithinMs)
          fails.push(`crossing: heat off ${figures.crossingOffMs} ms after the sample above ${c.aboveC} °C, bound ${c.heatOffWithinMs} ms`);
      }
    }
    const x = figures.crossingOffMs;
    addBound(
      'crossing',
      `heat off ≤ ${c.heatOffWithinMs} ms after ${c.sensor} reads above ${c.aboveC} °C`,
      x === undefined ? undefined : `${x} ms`,
      before,
    );
  }
  if (e.validation) fails.push(...mismatches(obs.validation, e.validation, 'validation'));
  if (e.limitsInForce) fails.push(...mismatches(obs.limits, e.limitsInForce, 'limitsInForce'));
  if (obs.unfired.length > 0) fails.push(`timeline: never reached ${obs.unfired.join(', ')}`);
  return { failures: fails, figures, bounds };
}
