// @slow: drives a real browser (npm run test:fast skips this file; npm test runs it)
/**
 * The dashboard end to end in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core): the page
 * loads, live temperatures change, a cooking run heats, the e-stop button cuts the heat and shows the latched stop.
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
declare const document: {
  querySelector(sel: string): { textContent: string | null } | null;
  querySelectorAll(sel: string): Iterable<{ getAttribute(name: string): string | null }>;
};

t.test('live values, heat on, e-stop pressed in the browser, heat off', async (t) => {
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

  await page.goto(`${d.url}/`);
  await page.waitForSelector('#link[data-state="live"]');
  t.match(await page.textContent('#safety'), /OK/);
  const sensor = [...d.app.ctx.rig.sensors.keys()][0] as string;
  const value = `#temps li[data-sensor="${sensor}"] .value`;

  for (const tempC of [61.5, 87.25]) {
    await post('/sim/v1/temperature', { sensor, tempC });
    await d.clock.advanceAsync(500);
    await page.waitForFunction(
      ([sel, want]) => {
        const got = Number.parseFloat(document.querySelector(sel as string)?.textContent ?? '');
        return Math.abs(got - (want as number)) < 3;
      },
      [value, tempC],
    );
    t.pass(`the page shows ${sensor} near ${tempC} °C`);
  }

  // Cook for real: a person present, a koshari run, time passing until the pot heats.
  const cook = d.token(['read', 'cook']);
  await post('/sim/v1/presence', { present: true });
  const key = newKey();
  const started = await post('/v1/executions', executeRequest(d.app, KOSHARI, key), {
    authorization: `Bearer ${cook}`,
    'idempotency-key': key,
  });
  t.equal(started.status, 202);
  let heating = false;
  for (let i = 0; i < 60 && !heating; i++) {
    await d.clock.advanceAsync(2000);
    heating = [...d.app.ctx.rig.heaters.values()].some((h) => h.power > 0);
  }
  t.ok(heating, 'a heater is on');
  await page.waitForSelector('#heaters li[data-power]:not([data-power="0"])');
  await page.waitForSelector('#execution[data-state="running"]');
  t.match(await page.textContent('#step'), /^Step \d+ of \d+: \S/, 'the current step is shown');

  await page.click('#estop');
  await page.waitForSelector('#safety[data-latched="true"]');
  await page.waitForFunction(() => [...document.querySelectorAll('#heaters li')].every((li) => li.getAttribute('data-power') === '0'));
  t.ok(
    [...d.app.ctx.rig.heaters.values()].every((h) => h.power === 0),
    'every heater of the rig is off',
  );
  t.equal(d.app.ctx.supervisor.status().latched, true, 'the stop is latched');
  t.match(await page.textContent('#banner-todo'), /\S/, 'the banner says what to do');
  t.ok(await page.isVisible('#safety-banner'), 'the safety banner is up');
  t.match(await page.textContent('#estop-result'), /Heat cut/);
  if (process.env.HEARTH_DASHBOARD_SCREENSHOT) await page.screenshot({ path: process.env.HEARTH_DASHBOARD_SCREENSHOT, fullPage: true });
  t.same(errors, [], 'no script errors on the page');
});
