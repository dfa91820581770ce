/**
 * One scenario's run as a self-contained SVG: above, every sensor's true temperature (the simulated rig's
 * physics, solid) and reported reading (dashed) with the limit lines in force for its medium and the
 * temperature bounds the scenario checks; below, every heater's commanded power (what Hearth asked, dashed) and
 * wire power (what the element was fed, solid). Vertical marks: the fault's injection and the other labelled
 * moments, the trip and the heat-off, each with its time from the start. No script, no external asset.
 */
import { xmlEscape as esc } from './junit.js';
import { firstTrip, type Observations } from './observe.js';
import type { ScenarioResult } from './runner.js';
import type { Scenario } from './scenario.js';

const W = 960;
const LEFT = 64;
const RIGHT = 200;
const TEMP = { top: 44, bottom: 330 };
const POWER = { top: 366, bottom: 466 };
const PALETTE = ['#d9480f', '#1971c2', '#2f9e44', '#9c36b5', '#e67700', '#0c8599'];
const MAX_POINTS = 700;

type Pt = [number, number];

/** At most MAX_POINTS points, keeping the first, the last, and each stretch's extremes. */
function thin(points: Pt[]): Pt[] {
  if (points.length <= MAX_POINTS) return points;
  const per = Math.ceil(points.length / (MAX_POINTS / 2));
  const out: Pt[] = [];
  for (let i = 0; i < points.length; i += per) {
    const chunk = points.slice(i, i + per);
    let lo = chunk[0] as Pt;
    let hi = chunk[0] as Pt;
    for (const p of chunk) {
      if (p[1] < lo[1]) lo = p;
      if (p[1] > hi[1]) hi = p;
    }
    out.push(...(lo[0] <= hi[0] ? [lo, hi] : [hi, lo]));
  }
  out.push(points.at(-1) as Pt);
  return out;
}

/** Hold each value until the next (power is a step function). */
function steps(points: Pt[]): Pt[] {
  const out: Pt[] = [];
  for (const [i, p] of points.entries()) {
    const prev = points[i - 1];
    if (prev && prev[1] !== p[1]) out.push([p[0], prev[1]]);
    out.push(p);
  }
  return out;
}

function max_temp_limits(obs: Observations, media: Set<string>): { id: string; maxC: number; medium: string }[] {
  const limits = (obs.limits?.limits ?? []) as {
    id?: string;
    kind?: string;
    max?: number;
    appliesTo?: { medium?: string; ops?: unknown };
  }[];
  const best = new Map<string, { id: string; maxC: number; medium: string }>();
  for (const l of limits) {
    const medium = l.appliesTo?.medium;
    if (l.kind !== 'max_temp' || typeof l.max !== 'number' || !medium || !media.has(medium) || l.appliesTo?.ops) continue;
    const was = best.get(medium);
    if (!was || l.max < was.maxC) best.set(medium, { id: l.id ?? medium, maxC: l.max, medium });
  }
  return [...best.values()];
}

export interface Mark {
  t: number;
  label: string;
  color: string;
}

/** The moments to mark: labelled ones (the fault first), the trip, and the heat-off the scenario measured. */
export function marks(result: ScenarioResult): Mark[] {
  const obs = result.obs;
  if (!obs) return [];
  const out: Mark[] = [];
  for (const [name, t] of obs.labels) {
    if (name === 'start') continue;
    out.push({ t, label: name, color: name === 'fault' ? '#e67700' : name === 'final' ? '#495057' : '#868e96' });
  }
  const trip = obs.bus.find((b) => b.name === 'safety' && (b.payload.kind === 'trip' || b.payload.kind === 'estop'));
  if (trip) out.push({ t: trip.t, label: `trip (${String(firstTrip(obs)?.reason ?? trip.payload.kind)})`, color: '#c92a2a' });
  const fault = obs.labels.get('fault');
  if (result.figures.heatOffMs !== undefined && fault !== undefined)
    out.push({ t: fault + result.figures.heatOffMs, label: 'heat off', color: '#5f3dc4' });
  return out.sort((a, b) => a.t - b.t);
}

const secs = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

export function scenarioSvg(scenario: Scenario, result: ScenarioResult): string {
  const obs = result.obs;
  const out: string[] = [];
  const H = POWER.bottom + 76;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="11" role="img" aria-label="${esc(`${scenario.name}: temperatures and heater power over time`)}">`,
    `<title>${esc(scenario.name)}</title>`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${LEFT}" y="18" font-size="14" font-weight="bold">${esc(scenario.name)} — ${result.skipped ? 'skipped' : result.ok ? 'pass' : 'FAIL'}</text>`,
  );
  if (!obs || (obs.trace.length === 0 && obs.readings.length === 0)) {
    out.push(`<text x="${LEFT}" y="60">${esc(result.skipped ?? 'the run recorded nothing to plot')}</text></svg>`);
    return out.join('\n');
  }
  // On a hardware rig there is no physics to read: only what Hearth read and commanded is drawn.
  const simulated = obs.trace.length > 0;
  const t0 = obs.startedAt;
  const t1 = Math.max(obs.trace.at(-1)?.t ?? t0, obs.readings.at(-1)?.t ?? t0, obs.powers.at(-1)?.t ?? t0, t0 + 1000);
  const sensors = Object.keys(obs.media).filter((s) =>
    simulated ? obs.trace.some((p) => p.trueC[s] !== undefined) : obs.readings.some((r) => r.sensor === s),
  );
  const heaters = Object.keys(obs.trace[0]?.wire ?? obs.powers[0]?.heaters ?? {});
  const hottest = (s: string) => (simulated ? obs.trueMaxC[s] : obs.maxTempC[s]) ?? 0;
  const heated = new Set(sensors.filter((s) => hottest(s) > 40).map((s) => obs.media[s] as string));
  const limits = max_temp_limits(obs, heated);
  const checked = [
    ...Object.entries(scenario.expect.trueMaxTempC ?? {}).map(([id, c]) => ({ c, label: `bound: ${id} true ≤ ${c} °C` })),
    ...Object.entries(scenario.expect.maxTempC ?? {}).map(([id, c]) => ({ c, label: `bound: ${id} read ≤ ${c} °C` })),
  ];
  const temps: number[] = [...limits.map((l) => l.maxC), ...checked.map((b) => b.c)];
  for (const p of obs.trace) for (const s of sensors) temps.push(p.trueC[s] as number);
  for (const r of obs.readings) if (r.t >= t0) temps.push(r.tempC);
  const lo = Math.floor(Math.min(...temps) / 10) * 10;
  const hi = Math.ceil((Math.max(...temps) + 5) / 10) * 10;
  const x = (t: number) => LEFT + ((t - t0) / (t1 - t0)) * (W - LEFT - RIGHT);
  const yT = (c: number) => TEMP.bottom - ((c - lo) / (hi - lo)) * (TEMP.bottom - TEMP.top);
  const yP = (p: number) => POWER.bottom - p * (POWER.bottom - POWER.top);
  const path = (pts: Pt[], y: (v: number) => number) =>
    pts.map(([t, v], i) => `${i === 0 ? 'M' : 'L'}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join('');
  // axes and grid
  const right = W - RIGHT;
  for (const [top, bottom, name] of [
    [TEMP.top, TEMP.bottom, '°C'],
    [POWER.top, POWER.bottom, 'power'],
  ] as const)
    out.push(
      `<rect x="${LEFT}" y="${top}" width="${right - LEFT}" height="${bottom - top}" fill="none" stroke="#adb5bd"/>`,
      `<text x="${LEFT - 8}" y="${top - 6}" text-anchor="end">${name}</text>`,
    );
  const step = Math.max(10, Math.ceil((hi - lo) / 8 / 10) * 10);
  for (let c = lo; c <= hi; c += step)
    out.push(
      `<line x1="${LEFT}" x2="${right}" y1="${yT(c)}" y2="${yT(c)}" stroke="#f1f3f5"/>`,
      `<text x="${LEFT - 6}" y="${yT(c) + 4}" text-anchor="end">${c}</text>`,
    );
  for (const p of [0, 0.5, 1]) out.push(`<text x="${LEFT - 6}" y="${yP(p) + 4}" text-anchor="end">${p * 100}%</text>`);
  const span = t1 - t0;
  const tick = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((s) => span / (s * 1000) <= 10) ?? 1200;
  for (let s = 0; s * 1000 <= span; s += tick)
    out.push(`<text x="${x(t0 + s * 1000)}" y="${POWER.bottom + 14}" text-anchor="middle">${s} s</text>`);
  // limit lines and checked bounds, their labels in the right margin kept 12 px apart
  const side: { y: number; text: string; color: string }[] = [];
  for (const l of limits) {
    out.push(
      `<line x1="${LEFT}" x2="${right}" y1="${yT(l.maxC)}" y2="${yT(l.maxC)}" stroke="#c92a2a" stroke-width="1.5" stroke-dasharray="8 4" data-limit="${esc(l.id)}"/>`,
    );
    side.push({ y: yT(l.maxC), text: `limit ${l.id} ${l.maxC} °C`, color: '#c92a2a' });
  }
  for (const b of checked) {
    out.push(`<line x1="${LEFT}" x2="${right}" y1="${yT(b.c)}" y2="${yT(b.c)}" stroke="#e67700" stroke-dasharray="2 3"/>`);
    side.push({ y: yT(b.c), text: b.label, color: '#e67700' });
  }
  side.sort((a, b) => a.y - b.y);
  let lastY = Number.NEGATIVE_INFINITY;
  for (const l of side) {
    const y = Math.max(l.y + 4, lastY + 12);
    lastY = y;
    out.push(`<text x="${right + 6}" y="${y}" fill="${l.color}">${esc(l.text)}</text>`);
  }
  // series
  const legend: string[] = [];
  sensors.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length] as string;
    const truePts = thin(obs.trace.map((p) => [p.t, p.trueC[s] as number] as Pt));
    const readPts = thin(obs.readings.filter((r) => r.sensor === s && r.t >= t0).map((r) => [r.t, r.tempC] as Pt));
    if (simulated) out.push(`<path d="${path(truePts, yT)}" fill="none" stroke="${color}" stroke-width="2" data-series="true:${esc(s)}"/>`);
    if (readPts.length > 0)
      out.push(
        `<path d="${path(readPts, yT)}" fill="none" stroke="${color}" stroke-width="1.2" stroke-dasharray="5 3" data-series="reported:${esc(s)}"/>`,
      );
    legend.push(`<tspan fill="${color}">${simulated ? `━ ${esc(s)} true  ` : ''}┅ ${esc(s)} reported</tspan>`);
  });
  heaters.forEach((h, i) => {
    const color = PALETTE[(i + 3) % PALETTE.length] as string;
    const wire = steps(thin(obs.trace.map((p) => [p.t, p.wire[h] ?? 0] as Pt)));
    const events = obs.bus.filter((b) => b.name === 'heater' && b.payload.heater === h);
    const commanded = steps([
      [t0, 0] as Pt,
      ...events.map((b) => [Math.max(b.t, t0), Number(b.payload.power)] as Pt),
      [t1, Number(events.at(-1)?.payload.power ?? 0)],
    ]);
    if (simulated) out.push(`<path d="${path(wire, yP)}" fill="none" stroke="${color}" stroke-width="2" data-series="wire:${esc(h)}"/>`);
    out.push(
      `<path d="${path(commanded, yP)}" fill="none" stroke="${color}" stroke-width="1.2" stroke-dasharray="5 3" data-series="commanded:${esc(h)}"/>`,
    );
    legend.push(`<tspan fill="${color}">${simulated ? `━ ${esc(h)} wire  ` : ''}┅ ${esc(h)} commanded</tspan>`);
  });
  // marks
  const placed: number[] = [];
  for (const m of marks(result)) {
    if (m.t < t0 || m.t > t1) continue;
    const mx = x(m.t);
    const row = placed.filter((p) => Math.abs(p - mx) < 150).length;
    placed.push(mx);
    // Near the right edge the label goes to the left of its line.
    const anchor = mx > right - 160 ? `x="${mx - 3}" text-anchor="end"` : `x="${mx + 3}"`;
    out.push(
      `<line x1="${mx}" x2="${mx}" y1="${TEMP.top}" y2="${POWER.bottom}" stroke="${m.color}" stroke-width="1.5" data-mark="${esc(m.label)}" data-t="${m.t - t0}"/>`,
      `<text ${anchor} y="${TEMP.top + 12 + row * 12}" fill="${m.color}" font-weight="bold">${esc(m.label)} ${secs(m.t - t0)}</text>`,
    );
  }
  out.push(`<text x="${LEFT}" y="${TEMP.top - 8}" font-size="10">${legend.slice(0, sensors.length).join('   ')}</text>`);
  out.push(`<text x="${LEFT}" y="${POWER.top - 8}" font-size="10">${legend.slice(sensors.length).join('   ')}</text>`);
  const bounds = (result.bounds ?? []).filter((b) => b.measured !== undefined && !/^(state|outcome|refusal|trip)$/.test(b.check));
  bounds.slice(0, 3).forEach((b, i) => {
    out.push(
      `<text x="${LEFT}" y="${POWER.bottom + 32 + i * 13}" fill="${b.ok ? '#2b8a3e' : '#c92a2a'}">${b.ok ? '✓' : '✗'} ${esc(b.check)}: ${esc(b.bound)}; measured ${esc(b.measured ?? '')}</text>`,
    );
  });
  if (!simulated)
    out.push(
      `<text x="${right}" y="${TEMP.top - 8}" text-anchor="end" font-size="10">a hardware rig: no true temperature or wire power to draw</text>`,
    );
  out.push('</svg>');
  return out.join('\n');
}
