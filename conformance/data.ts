/** Loads the data files the rules need from schemas/ (units, facets, recipient roles, mission transitions). */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseJson } from '../core/canonical.js';
import { parseDisclosureData } from '../core/profiles/disclosure-policy.js';
import { parseMissionTable } from '../core/profiles/mission-transition.js';
import { parseUnitsTable } from '../core/units.js';
import type { RuleData } from './types.js';

// From source (conformance/) and from the build (dist/conformance/) the data stays in the repository's schemas/.
const roots = [new URL('../schemas/', import.meta.url), new URL('../../schemas/', import.meta.url)].map((u) => fileURLToPath(u));

function read(rel: string): unknown {
  const root = roots.find((r) => existsSync(`${r}${rel}`));
  if (root === undefined) throw new Error(`data file schemas/${rel} is missing`);
  try {
    return parseJson(readFileSync(`${root}${rel}`, 'utf8'));
  } catch (err) {
    throw new Error(`data file schemas/${rel}: ${(err as Error).message}`);
  }
}

let cached: RuleData | undefined;

export function loadRuleData(): RuleData {
  cached ??= {
    units: parseUnitsTable(read('vocab/units.json')),
    disclosure: parseDisclosureData(read('profiles/facets.json'), read('profiles/recipient-roles.json')),
    missions: parseMissionTable(read('profiles/mission-transitions.json')),
  };
  return cached;
}
