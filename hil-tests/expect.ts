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

export function evaluate(e: Expectation, obs: Observations): { failures: string[]; figures: Figures } {
  const fails: string[] = [];
  const figures: Figures = {};
  const status = obs.status ?? {};
  if (e.state !== undefined) fails.push(...mismatches(status.state, e.state, 'state'));
  if (e.outcome !== undefined) fails.push(...mismatches(obs.log?.outcome, e.outcome, 'outcome'));
  if (e.refusal !== undefined) fails.push(...mismatches(status.refusal, e.refusal, 'refusal'));
  if (e.trip !== undefined) fails.push(...mismatches(firstTrip(obs), e.trip, 'trip'));
  if (e.status) fails.push(...mismatches(status, e.status, 'status'));
  if (e.log) fails.push(...mismatches(obs.log, e.log, 'log'));
  if (e.safety) fails.push(...mismatches(obs.safety, e.safety, 'safety'));
  if (e.bus) fails.push(...mismatches(obs.bus, e.bus, 'bus'));
  if (e.grants) fails.push(...mismatches(obs.grants, e.grants, 'grants'));
  if (e.http) fails.push(...mismatches(obs.http, e.http, 'http'));
  for (const [sensor, max] of Object.entries(e.maxTempC ?? {})) {
    const seen = obs.maxTempC[sensor];
    if (seen === undefined) fails.push(`maxTempC/${sensor}: no reading seen`);
    else if (seen > max) fails.push(`maxTempC/${sensor}: read ${seen} °C, above ${max} °C`);
  }
  for (const [id, max] of Object.entries(e.trueMaxTempC ?? {})) {
    const seen = obs.trueMaxC[id];
    if (seen === undefined) fails.push(`trueMaxTempC/${id}: no true temperature (the rig is not simulated)`);
    else if (seen > max) fails.push(`trueMaxTempC/${id}: the contents reached ${seen} °C, above ${max} °C`);
  }
  if (e.heatOff) {
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
  }
  if (e.tripWithin) {
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
  }
  if (e.stopWithin) {
    const from = moment(obs, e.stopWithin.from, 'stopWithin', fails);
    if (from !== undefined) {
      if (obs.finalAt === undefined) fails.push('stopWithin: the execution never reached a final state');
      else {
        figures.stopMs = obs.finalAt - from;
        const bound = ms(e.stopWithin.within as Duration);
        if (figures.stopMs > bound) fails.push(`stopWithin: final ${figures.stopMs} ms after the fault, bound ${bound} ms`);
      }
    }
  }
  for (const w of e.noHeatBetween ?? []) {
    const from = moment(obs, w.from, 'noHeatBetween', fails);
    const to = w.to === undefined ? Number.POSITIVE_INFINITY : moment(obs, w.to, 'noHeatBetween', fails);
    if (from === undefined || to === undefined) continue;
    const start = from + (w.graceMs ?? 0);
    const on = [{ t: start, heaters: powersAt(obs, start) }, ...obs.powers.filter((p) => p.t > start && p.t < to)].find((p) =>
      Object.values(p.heaters).some((v) => v > 0),
    );
    if (on) fails.push(`noHeatBetween ${w.from}..${w.to ?? 'end'}: heat on at +${on.t - from} ms (${show(on.heaters)})`);
  }
  if (e.watchdog) {
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
  }
  if (e.crossing) {
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
  }
  if (e.validation) fails.push(...mismatches(obs.validation, e.validation, 'validation'));
  if (e.limitsInForce) fails.push(...mismatches(obs.limits, e.limitsInForce, 'limitsInForce'));
  if (obs.unfired.length > 0) fails.push(`timeline: never reached ${obs.unfired.join(', ')}`);
  return { failures: fails, figures };
}
