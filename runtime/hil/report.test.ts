// @slow: runs the CLI and drives a real browser (npm run test:fast skips this file; npm test runs it)
/**
 * `hearth hil --report DIR` opened from the file system in headless Chromium (Debian's /usr/bin/chromium,
 * driven by playwright-core): no console error, no request leaves the folder, the summary table lists every
 * scenario, and the frozen-oil chart shows what happened: the oil's true temperature above its frozen reading,
 * the fryer's power, the limit line, the fault and the trip marked at the times the run measured. A
 * screenshot of the chart is kept under .artifacts/ (git-ignored) to look at.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import t from 'tap';
import { CHROMIUM_ARGS } from '../../test-support/chromium.js';
import { repoRoot, runCli, scratchFiles } from '../../test-support/cli.js';

// The page's DOM, as far as the functions evaluated in the browser use it (the project compiles without the DOM lib).
declare const document: {
  querySelectorAll(sel: string): ArrayLike<{ getAttribute(name: string): string | null; textContent: string | null }>;
  querySelector(sel: string): { getAttribute(name: string): string | null; getBoundingClientRect(): { height: number } } | null;
};

const ARTIFACTS = join(repoRoot, '.artifacts', 'hil-report');

t.test('the report opens from the file system and its frozen-oil chart shows the curves and the trip', async (t) => {
  const { dir } = scratchFiles(t, 'hearth-hil-report-');
  const out = join(dir, 'report');
  const r = await runCli(['hil', '--json', '--report', out, 'frozen-oil-below-target', 'recipe-widens-envelope']);
  t.equal(r.code, 0, r.stderr);
  const run = JSON.parse(r.stdout) as { results: { name: string; figures: { tripMs?: number } }[] };
  const tripMs = run.results.find((x) => x.name === 'frozen-oil-below-target')?.figures.tripMs;
  t.ok(tripMs !== undefined && tripMs > 0, 'the run measured the trip');
  t.same(readdirSync(out).sort(), ['frozen-oil-below-target.svg', 'index.html', 'recipe-widens-envelope.svg']);
  t.same(
    readdirSync(dir).filter((n) => n.startsWith('.')),
    [],
    'no staging folder left',
  );

  const profile = join(dir, 'profile');
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
  t.teardown(() => browser.close());
  const page = browser.pages()[0] ?? (await browser.newPage());
  await page.setViewportSize({ width: 1100, height: 900 });
  const errors: string[] = [];
  const elsewhere: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (q) => {
    if (!q.url().startsWith('file:') && !q.url().startsWith('data:')) elsewhere.push(q.url());
  });
  await page.goto(pathToFileURL(join(out, 'index.html')).href);
  await page.waitForSelector('#frozen-oil-below-target svg');

  const rows = await page.evaluate(() => Array.from(document.querySelectorAll('#summary tr')).map((tr) => tr.textContent ?? ''));
  t.equal(rows.length, 3, 'a header and one row per scenario');
  t.match(rows[1], /frozen-oil-below-target\s*pass.*trip ≤ 60000 ms after "fault": \d+ ms/);
  t.match(rows[2], /recipe-widens-envelope\s*pass/);

  const chart = await page.evaluate(() => {
    const at = (sel: string) => document.querySelector(`#frozen-oil-below-target svg ${sel}`);
    const lastY = (sel: string) => {
      const d = at(sel)?.getAttribute('d') ?? '';
      const m = /([\d.]+),([\d.]+)$/.exec(d);
      return m ? Number(m[2]) : Number.NaN;
    };
    const mark = (prefix: string) =>
      Array.from(document.querySelectorAll('#frozen-oil-below-target svg [data-mark]'))
        .filter((l) => (l.getAttribute('data-mark') ?? '').startsWith(prefix))
        .map((l) => Number(l.getAttribute('data-t')));
    return {
      height: document.querySelector('#frozen-oil-below-target svg')?.getBoundingClientRect().height ?? 0,
      series: Array.from(document.querySelectorAll('#frozen-oil-below-target svg [data-series]')).map((p) => p.getAttribute('data-series')),
      limit: at('[data-limit="oil.device_max"]') !== null,
      trueOilEnd: lastY('[data-series="true:oil"]'),
      readOilEnd: lastY('[data-series="reported:oil"]'),
      fault: mark('fault'),
      trip: mark('trip (frozen_reading)'),
    };
  });
  t.ok(chart.height > 300, 'the chart is drawn');
  for (const s of ['true:oil', 'reported:oil', 'wire:fryer', 'commanded:fryer', 'true:liquid', 'wire:pot'])
    t.ok(chart.series.includes(s), `series ${s}`);
  t.ok(chart.limit, "the oil's limit line");
  t.ok(chart.trueOilEnd < chart.readOilEnd, 'at the end the true oil line is above the frozen reading (smaller y is hotter)');
  t.equal(chart.fault.length, 1, 'the fault is marked');
  t.equal(chart.trip.length, 1, 'the trip is marked');
  t.equal((chart.trip[0] as number) - (chart.fault[0] as number), tripMs, 'the trip mark sits where the run measured it');

  mkdirSync(ARTIFACTS, { recursive: true });
  const shot = join(ARTIFACTS, 'frozen-oil-below-target.png');
  await (await page.$('#frozen-oil-below-target svg'))?.screenshot({ path: shot });
  t.ok(existsSync(shot) && statSync(shot).size > 10_000, `screenshot at ${shot}`);
  t.same(errors, [], 'no console error');
  t.same(elsewhere, [], 'nothing requested from outside the folder');
});
