/**
 * The hazard table: hazard → controls → scenarios → measured bound, kept in hil-tests/hazards.yaml (shipped in
 * the package). docs/safety-case.md's table is generated from it (`npx tsx hil-tests/hazard-table.ts --write`;
 * hil-tests/hazard-table.test.ts fails when they differ) and `hearth safety-report` reads the same file, so the
 * document and the signed report cannot disagree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { CliError } from '../../platform/cli-error.js';
import { hilDir } from './scenario.js';

export interface Hazard {
  hazard: string;
  controls: string[];
  scenarios: string[];
  bound: string;
}

export const hazardsFile = join(hilDir, 'hazards.yaml');

const names = { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' } };
const validate = new Ajv({ strict: false }).compile({
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['hazard', 'controls', 'scenarios', 'bound'],
    properties: { hazard: { type: 'string', minLength: 1 }, controls: names, scenarios: names, bound: { type: 'string', minLength: 1 } },
  },
});

export function loadHazards(file = hazardsFile): Hazard[] {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`cannot read the hazard table ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!validate(doc)) {
    const e = validate.errors?.[0];
    throw new CliError(`hazard table ${file}: ${e?.instancePath || '/'} ${e?.message ?? 'is invalid'}`);
  }
  return doc as Hazard[];
}

const cell = (s: string) => s.replace(/\|/g, '\\|');
const ticks = (xs: string[]) => xs.map((x) => `\`${x}\``).join(', ');

/** The Markdown table of docs/safety-case.md. */
export function hazardTableMarkdown(rows: readonly Hazard[]): string {
  return [
    '| hazard | control | scenario | measured bound |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${cell(r.hazard)} | ${ticks(r.controls)} | ${ticks(r.scenarios)} | ${cell(r.bound)} |`),
  ].join('\n');
}
