/**
 * The hazard table of docs/safety-case.md (hazard → control → scenario → measured bound), checked against the
 * code: every control in SAFETY_CONTROLS has a row; every row names a hazard, at least one control that
 * exists, at least one scenario that exists and proves one of the row's controls (a HIL scenario whose
 * `controls:` list names it, or a process-level scenario whose `control` is it), and a bound. The table is
 * generated from hil-tests/hazards.yaml, the source `hearth safety-report` reads too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Hazard, hazardTableMarkdown, loadHazards } from '../runtime/hil/hazards.js';
import { loadScenario, repoDir, scenarioFiles } from '../runtime/hil/scenario.js';
import { SAFETY_CONTROLS } from '../safety/controls.js';
import { processScenarios } from './mutation-run.js';

export interface HazardRow {
  line: number;
  hazard: string;
  controls: string[];
  scenarios: string[];
  bound: string;
}

const HEADER = /^\|\s*hazard\s*\|\s*control\s*\|\s*scenario\s*\|\s*measured bound\s*\|\s*$/i;

/** Backticked names in a cell. */
const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => (m[1] as string).trim());

/** The rows of the first table whose header is `| hazard | control | scenario | measured bound |`. */
export function hazardRows(markdown: string): HazardRow[] | undefined {
  const lines = markdown.split('\n');
  const at = lines.findIndex((l) => HEADER.test(l.trim()));
  if (at < 0) return undefined;
  const rows: HazardRow[] = [];
  for (let i = at + 2; i < lines.length; i++) {
    const l = (lines[i] as string).trim();
    if (!l.startsWith('|')) break;
    const cells = l
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
    rows.push({
      line: i + 1,
      hazard: cells[0] ?? '',
      controls: names(cells[1] ?? ''),
      scenarios: names(cells[2] ?? ''),
      bound: cells.slice(3).join('|').trim(),
    });
  }
  return rows;
}

/** What proves which control: scenario name or id → the controls it proves. */
export function provers(): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const f of scenarioFiles()) m.set(basename(f).replace(/\.(ya?ml|json)$/, ''), loadScenario(f).controls ?? []);
  for (const s of processScenarios) m.set(s.id ?? s.name, [s.control]);
  return m;
}

/** Problems with the table (empty when it is complete and true to the code). */
export function checkHazardTable(
  markdown: string,
  controls: readonly string[] = SAFETY_CONTROLS,
  scenarios: Map<string, string[]> = provers(),
): string[] {
  const rows = hazardRows(markdown);
  if (!rows) return ['no table with the header | hazard | control | scenario | measured bound |'];
  const out: string[] = [];
  for (const r of rows) {
    const at = `line ${r.line}`;
    if (r.hazard === '') out.push(`${at}: no hazard`);
    if (r.controls.length === 0) out.push(`${at}: no control named (in backticks)`);
    for (const c of r.controls) if (!controls.includes(c)) out.push(`${at}: no control \`${c}\` in SAFETY_CONTROLS`);
    if (r.scenarios.length === 0) out.push(`${at}: the hazard "${r.hazard}" has no scenario`);
    for (const s of r.scenarios) {
      const proves = scenarios.get(s);
      if (!proves) out.push(`${at}: no scenario \`${s}\` (a file in hil-tests/scenarios/ or a process-level scenario id)`);
      else if (!r.controls.some((c) => proves.includes(c)))
        out.push(
          `${at}: \`${s}\` does not prove ${r.controls.map((c) => `\`${c}\``).join(' or ')} (it names ${proves.join(', ') || 'no control'})`,
        );
    }
    if (r.bound === '') out.push(`${at}: no measured bound`);
  }
  for (const c of controls) if (!rows.some((r) => r.controls.includes(c))) out.push(`control \`${c}\` has no row`);
  return out;
}

/** docs/safety-case.md with its hazard table replaced by the one generated from hil-tests/hazards.yaml. */
export function withGeneratedTable(markdown: string, rows: readonly Hazard[] = loadHazards()): string {
  const lines = markdown.split('\n');
  const at = lines.findIndex((l) => HEADER.test(l.trim()));
  if (at < 0) throw new Error('docs/safety-case.md has no hazard table');
  let end = at;
  while (end < lines.length && (lines[end] as string).trim().startsWith('|')) end++;
  return [...lines.slice(0, at), hazardTableMarkdown(rows), ...lines.slice(end)].join('\n');
}

// `npx tsx hil-tests/hazard-table.ts --write`: regenerate docs/safety-case.md's table from hil-tests/hazards.yaml.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes('--write')) {
  const doc = join(repoDir, 'docs/safety-case.md');
  writeFileSync(doc, withGeneratedTable(readFileSync(doc, 'utf8')));
}
