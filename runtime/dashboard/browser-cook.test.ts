// @slow: drives a real browser (npm run test:fast skips this file; npm test runs it)
/**
 * The dashboard as a cook reads it, in headless Chromium (Debian's /usr/bin/chromium, playwright-core): the
 * recipe and its steps in words, the time left, a chart with axes, units and the limit in force, a safety
 * banner that says what happened and what to do, a favicon, and a layout that fits a 390 px wide phone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import t from 'tap';
import { CHROMIUM_ARGS } from '../../test-support/chromium.js';
import { executeRequest, KOSHARI, newKey } from '../app/testing.js';
import { startDashboardApp } from './test-app.js';

// The page's DOM, as far as the functions evaluated in the browser use it (the project compiles without the DOM lib).
type Box = { left: number; right: number; top: number; bottom: number; width: number; height: number };
declare const document: {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelector(sel: string): { textContent: string | null; getBoundingClientRect(): Box; getAttribute(n: string): string | null } | null;
  querySelectorAll(sel: string): Iterable<{ textContent: string | null; getAttribute(name: string): string | null }>;
};

const d = await startDashboardApp();
t.teardown(() => d.close());
const profile = mkdtempSync(join(tmpdir(), 'hearth-chromium-'));
t.teardown(() => rmSync(profile, { recursive: true, force: true }));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  args: CHROMIUM_ARGS,
  headless: true,
});
t.teardown(() => browser.close());
const page = browser.pages()[0] ?? (await browser.newPage());
const errors: string[] = [];
page.on('pageerror', (e) => errors.push(e.message));

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${d.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

// A koshari run, some minutes in, a person present.
await post('/sim/v1/presence', { present: true });
const key = newKey();
const started = await post('/v1/executions', executeRequest(d.app, KOSHARI, key), {
  authorization: `Bearer ${d.token(['read', 'cook'])}`,
  'idempotency-key': key,
});
if (started.status !== 202) throw new Error(`koshari did not start: ${started.status} ${await started.text()}`);
for (let i = 0; i < 30; i++) await d.clock.advanceAsync(2000);
await page.setViewportSize({ width: 1280, height: 900 });
await page.goto(`${d.url}/`);
await page.waitForSelector('#link[data-state="live"]');
await page.waitForSelector('#execution[data-state="running"]');

t.test('the recipe and its steps are in words, never ids or op codes', async (t) => {
  await page.waitForSelector('#now-step:not([hidden])');
  t.equal(await page.textContent('#recipe-title'), 'Koshari', 'the title from the recipe');
  const step = (await page.textContent('#step')) ?? '';
  t.match(step, /^Step \d+ of 20: [A-Z][a-z]/, step);
  t.match(await page.textContent('#step-text'), /lentils/i, "the recipe's own sentence for the step");
  const all = await page.$$eval('#steps li', (els) => els.map((e) => e.textContent ?? ''));
  t.equal(all.length, 20, 'every step listed');
  t.ok(
    all.some((s) => s.startsWith('Deep-fry') || s.startsWith('Deep fry')),
    'the deep-fry step by its name',
  );
  for (const s of [step, ...all]) {
    t.notMatch(s, /cw\.op\.|\bn\d+\b/, `no op code or node id in "${s.slice(0, 40)}"`);
  }
});

t.test('time left for the step and the recipe counts down with device time', async (t) => {
  const seconds = (s: string | null) => {
    const m = /(?:(\d+) h )?(\d+) (min|s) left/.exec(s ?? '');
    if (!m) return Number.NaN;
    return Number(m[1] ?? 0) * 3600 + Number(m[2]) * (m[3] === 'min' ? 60 : 1);
  };
  const before = seconds(await page.textContent('#recipe-left'));
  t.ok(before > 30 * 60, `a koshari has more than half an hour left (${before} s)`);
  t.ok(seconds(await page.textContent('#step-left')) <= before, 'the step is part of the recipe');
  const status = d.app.ctx.executor.status(d.app.ctx.executor.activeId as string);
  const expected = (Date.parse(status?.eta ?? '') - Date.parse(status?.updatedAt ?? '')) / 1000;
  t.ok(Math.abs(before - expected) <= 60, `matches the executor's estimate (${Math.round(expected)} s)`);
  // While a pot heats up the executor's estimate holds still (it counts the step's time from when it holds its
  // temperature); once it holds, time left runs down. Move device time on until the page shows less left.
  let now = before;
  for (let i = 0; i < 240 && !(now < before); i++) {
    await d.clock.advanceAsync(10_000);
    now = seconds(await page.textContent('#recipe-left'));
  }
  await page.waitForFunction(
    ([sel, was]) => {
      const m = /(?:(\d+) h )?(\d+) (min|s) left/.exec(document.querySelector(sel as string)?.textContent ?? '');
      return m !== null && Number(m[1] ?? 0) * 3600 + Number(m[2]) * (m[3] === 'min' ? 60 : 1) < (was as number);
    },
    ['#recipe-left', before],
    { timeout: 60_000 },
  );
  t.pass('later in device time, less is left');
});

t.test('the chart has axes with units and the limit in force drawn on it', async (t) => {
  await page.waitForSelector('#plot svg .series');
  const state = (await (await fetch(`${d.url}/dashboard/v1/state`)).json()) as { limits: Record<string, { maxC: number }> };
  t.ok(Object.keys(state.limits).length > 0, 'the device has limits on its sensors');
  const yAxis = await page.$$eval('#plot .y-axis text', (els) => els.map((e) => e.textContent));
  t.ok(yAxis.includes('°C'), 'the temperature axis says °C');
  t.ok(yAxis.filter((s) => /^\d+$/.test(s ?? '')).length >= 3, 'with numbered ticks');
  const xAxis = await page.$$eval('#plot .x-axis text', (els) => els.map((e) => e.textContent));
  t.ok(xAxis.includes('minutes ago') && xAxis.includes('now'), 'the time axis says minutes ago, up to now');
  const drawn = await page.$$eval('#plot .limit', (els) =>
    els.map((e) => ({ at: Number(e.getAttribute('data-limit')), text: e.textContent })),
  );
  for (const [sensor, l] of Object.entries(state.limits)) {
    const line = drawn.find((x) => x.at === l.maxC);
    t.ok(line, `the ${l.maxC} °C limit on ${sensor} is drawn`);
    t.match(line?.text, new RegExp(`limit ${l.maxC} °C`), 'and labelled with its value');
  }
  // Drawn where its value is: the line sits between the tick labels around it.
  const geometry = await page.evaluate(() => {
    const ticks = [...document.querySelectorAll('#plot .y-axis text')]
      .map((e) => ({ v: Number(e.textContent), y: Number(e.getAttribute('y')) - 4 }))
      .filter((x) => Number.isFinite(x.v));
    const limit = document.querySelector('#plot .limit line');
    return {
      ticks,
      limitY: Number(limit?.getAttribute('y1')),
      limitV: Number(document.querySelector('#plot .limit')?.getAttribute('data-limit')),
    };
  });
  const below = geometry.ticks.filter((x) => x.v <= geometry.limitV).sort((a, b) => b.v - a.v)[0];
  const above = geometry.ticks.filter((x) => x.v >= geometry.limitV).sort((a, b) => a.v - b.v)[0];
  t.ok(
    below && above && geometry.limitY <= below.y + 0.5 && geometry.limitY >= above.y - 0.5,
    'the limit line is at its value on the axis',
  );
});

t.test('a safety stop shows a banner with what happened and what to do', async (t) => {
  t.equal(await page.isVisible('#safety-banner'), false, 'no banner while all is well');
  // The probe in the pot comes loose while the water heats.
  await post('/sim/v1/faults', { kind: 'open_circuit', target: 'liquid' });
  for (let i = 0; i < 30 && !d.app.ctx.supervisor.status().latched; i++) await d.clock.advanceAsync(1000);
  t.ok(d.app.ctx.supervisor.status().latched, 'the supervisor stopped');
  t.ok(
    [...d.app.ctx.rig.heaters.values()].every((h) => h.power === 0),
    'every heater is off',
  );
  await page.waitForSelector('#safety-banner:not([hidden])');
  const trip = d.app.ctx.supervisor.status().trip;
  const title = (await page.textContent('#banner-title')) ?? '';
  t.notMatch(title, /_/, `the reason in words: ${title}`);
  t.match(title, /sensor|thermometer|probe|reading/i);
  t.match(await page.textContent('#safety-banner'), /What to do:/);
  t.equal(await page.textContent('#banner-todo'), trip?.hint, "the device's hint says what to check");
  t.equal(await page.getAttribute('#safety-banner', 'role'), 'alert', 'announced to screen readers');
  const box = await page.evaluate(() => document.querySelector('#safety-banner')?.getBoundingClientRect());
  t.ok(box && box.top < 200, 'at the top of the page');
});

t.test('a favicon', async (t) => {
  const href = await page.getAttribute('link[rel="icon"]', 'href');
  t.ok(href, 'the page names an icon');
  const icon = await fetch(new URL(href as string, d.url));
  t.equal(icon.status, 200);
  t.match(icon.headers.get('content-type'), /^image\/svg\+xml/);
  t.match(await icon.text(), /<svg/);
  const ico = await fetch(`${d.url}/favicon.ico`);
  t.equal(ico.status, 200, '/favicon.ico for clients that ask for it');
});

t.test('usable on a phone 390 px wide', async (t) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => Number(document.querySelector('#plot svg')?.getAttribute('width')) <= 390);
  const m = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
    estop: document.querySelector('#estop')?.getBoundingClientRect(),
    chart: document.querySelector('#plot svg')?.getBoundingClientRect(),
    temps: document.querySelector('#temps')?.getBoundingClientRect(),
  }));
  t.ok(m.scroll <= m.client, `no sideways scrolling (${m.scroll} ≤ ${m.client})`);
  t.ok(m.estop && m.estop.left >= 0 && m.estop.right <= 390 && m.estop.height >= 60, 'the e-stop is whole and big enough to hit');
  t.ok(m.chart && m.chart.right <= 390, 'the chart fits');
  t.ok(m.temps && m.temps.right <= 390, 'the readings fit');
  t.equal(await page.getAttribute('meta[name="viewport"]', 'content'), 'width=device-width, initial-scale=1');
  t.same(errors, [], 'no script errors on the page');
});
