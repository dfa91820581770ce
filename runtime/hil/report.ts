/**
 * `hearth hil --report DIR`: index.html (a summary table, then each scenario's chart, the bounds it checked
 * with what was measured, and its failures) and one SVG per scenario beside it. Everything is inline or in the
 * folder: no script, font, style sheet or image from elsewhere, so the page opens from the file system and can
 * be archived as it is. The safety report's report.html (safety-report.ts) is the same page with its hazard
 * table on top.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scenarioSvg } from './chart.js';
import { xmlEscape as esc } from './junit.js';
import type { ScenarioResult } from './runner.js';
import type { Scenario } from './scenario.js';

export interface Pair {
  result: ScenarioResult;
  scenario: Scenario;
}

export interface PageOptions {
  title: string;
  /** Lines under the title (rig, version, date). */
  facts?: [string, string][];
  /** HTML inserted before the summary (already escaped). */
  before?: string;
}

const STYLE = `body{font-family:sans-serif;margin:24px;color:#212529;max-width:1000px}
table{border-collapse:collapse;margin:12px 0;font-size:13px}td,th{border:1px solid #dee2e6;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f5}.pass{color:#2b8a3e}.FAIL{color:#c92a2a;font-weight:bold}.skip{color:#868e96}
section{margin-top:28px;border-top:1px solid #dee2e6}svg{max-width:100%;height:auto}code{font-size:12px}`;

const verdict = (r: ScenarioResult) => (r.skipped ? 'skip' : r.ok ? 'pass' : 'FAIL');

/** The file name of a scenario's chart. */
export const svgName = (name: string) => `${name.replace(/[^a-zA-Z0-9._-]/g, '_')}.svg`;

function boundCells(r: ScenarioResult): string {
  const timed = (r.bounds ?? []).filter((b) => !/^(state|outcome|refusal|trip|status|log|safety|bus|grants|http)$/.test(b.check));
  if (timed.length === 0) return r.skipped ? esc(r.skipped) : '—';
  return timed
    .map(
      (b) => `<span class="${b.ok ? 'pass' : 'FAIL'}">${b.ok ? '✓' : '✗'}</span> ${esc(b.bound)}: <b>${esc(b.measured ?? 'nothing')}</b>`,
    )
    .join('<br>');
}

export function reportHtml(pairs: readonly Pair[], o: PageOptions): string {
  const rows = pairs
    .map(
      ({ result: r }) =>
        `<tr><td><a href="#${esc(r.name)}">${esc(r.name)}</a></td><td class="${verdict(r)}">${verdict(r)}</td><td>${boundCells(r)}</td><td>${((r.ms ?? 0) / 1000).toFixed(1)} s</td></tr>`,
    )
    .join('\n');
  const sections = pairs
    .map(({ result: r, scenario: s }) => {
      const bounds = (r.bounds ?? [])
        .map(
          (b) =>
            `<li class="${b.ok ? 'pass' : 'FAIL'}">${b.ok ? '✓' : '✗'} <code>${esc(b.check)}</code>: ${esc(b.bound)}; measured ${esc(b.measured ?? 'nothing')}</li>`,
        )
        .join('\n');
      const fails = r.failures.map((f) => `<li>${esc(f)}</li>`).join('\n');
      return [
        `<section id="${esc(r.name)}"><h2>${esc(r.name)} <span class="${verdict(r)}">${verdict(r)}</span></h2>`,
        `<p>${esc(s.description)}</p><p>On a real rig: <code>${esc(s.hardware)}</code>${s.controls ? `; proves <code>${s.controls.map(esc).join('</code>, <code>')}</code>` : ''}.</p>`,
        scenarioSvg(s, r),
        bounds ? `<h3>Bounds checked</h3><ul>${bounds}</ul>` : '',
        fails ? `<h3>Failures</h3><ul>${fails}</ul>` : '',
        '</section>',
      ].join('\n');
    })
    .join('\n');
  const passed = pairs.filter((p) => p.result.ok && !p.result.skipped).length;
  const failed = pairs.filter((p) => !p.result.ok).length;
  const skipped = pairs.filter((p) => p.result.skipped).length;
  const facts = (o.facts ?? []).map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(o.title)}</title><style>${STYLE}</style></head>
<body>
<h1>${esc(o.title)}</h1>
${facts ? `<table>${facts}</table>` : ''}
${o.before ?? ''}
<h2>Summary: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}</h2>
<table id="summary"><tr><th>scenario</th><th>result</th><th>bounds checked: measured</th><th>wall time</th></tr>
${rows}
</table>
<p>Charts: solid lines are what physically happened (a sensor's true temperature on the simulated rig, the power on a heater's wire), dashed lines what Hearth saw and did (the reported reading, the power it commanded). Red dashed lines are the limits in force, orange dotted ones the temperature bounds the scenario checks. Times are simulated seconds from the start.</p>
${sections}
</body></html>
`;
}

/** Write index.html and one SVG per scenario into `dir` (an existing, empty folder). */
export function writeReport(dir: string, pairs: readonly Pair[], o: PageOptions): void {
  for (const { result, scenario } of pairs) writeFileSync(join(dir, svgName(result.name)), `${scenarioSvg(scenario, result)}\n`);
  writeFileSync(join(dir, 'index.html'), reportHtml(pairs, o));
}
