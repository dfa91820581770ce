/**
 * The house is one-way (docs/CONTRIBUTING.md, "Layers"): each top-level folder may import only the folders
 * below it, production code never imports test-support/, hil-tests/ or the test code beside it (testing/ folders,
 * test-*.ts: the scope table of runtime/hub/testing/ is for the scope matrix and the fuzz harness only), and no two modules import each other,
 * directly or around a loop (type-only imports included: a type cycle is still a design cycle).
 *
 * The graph is read from the sources, relative imports only (packages are not ours to order).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import t from 'tap';
import { repoRoot } from '../../test-support/cli.js';

/** Each layer and the layers it may import (itself always allowed). */
const MAY_IMPORT: Record<string, string[]> = {
  core: [],
  schemas: ['core'],
  platform: ['core', 'schemas'],
  safety: ['core', 'schemas'],
  drivers: ['core', 'schemas', 'safety', 'platform'],
  conformance: ['core', 'schemas', 'safety', 'platform'],
  services: ['core', 'schemas', 'safety', 'platform', 'drivers', 'conformance'],
  runtime: ['core', 'schemas', 'safety', 'platform', 'drivers', 'conformance', 'services'],
};
const LAYERS = Object.keys(MAY_IMPORT);

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?[^'";]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

/**
 * Tests, and the helpers that sit beside the code for tests only (test-helpers.ts, testing.ts, test-fixtures.ts, …,
 * and whatever is in a testing/ folder: runtime/hub/testing/ holds the scope matrix's table and fixtures).
 */
const TEST_CODE = /(\.test\.ts$|(^|\/)(test-[^/]*|testing)\.ts$|(^|\/)testing\/)/;

/** Production modules (no tests) of every layer, with the repository-relative files each imports. */
export function importGraph(root: string): Map<string, string[]> {
  const files: string[] = [];
  for (const layer of LAYERS)
    for (const f of readdirSync(join(root, layer), { recursive: true }))
      if (typeof f === 'string' && f.endsWith('.ts') && !TEST_CODE.test(f) && !f.includes('node_modules')) files.push(join(layer, f));
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const src = readFileSync(join(root, f), 'utf8');
    const out: string[] = [];
    for (const m of src.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec) continue;
      out.push(relative(root, resolve(root, dirname(f), spec)).replace(/\.js$/, '.ts'));
    }
    graph.set(f, out);
  }
  return graph;
}

/** Strongly connected components with more than one module (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Imports that point up the house or into test code. */
export function upwardImports(graph: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    const layer = from.split('/')[0] as string;
    for (const to of targets) {
      const target = to.split('/')[0] as string;
      if (TEST_CODE.test(to)) bad.push(`${from} → ${to} (test code)`);
      else if (target === layer) continue;
      else if (target === 'test-support' || target === 'hil-tests' || target === 'bench') bad.push(`${from} → ${to} (test code)`);
      else if (LAYERS.includes(target) && !MAY_IMPORT[layer]?.includes(target))
        bad.push(`${from} → ${to} (${layer} may not import ${target})`);
    }
  }
  return bad;
}

t.test('no production module imports up the house or into test code', async (t) => {
  t.same(upwardImports(importGraph(repoRoot)), []);
});

t.test('no import cycles, type-only imports included', async (t) => {
  t.same(cycles(importGraph(repoRoot)), []);
});

t.test('the checks see what they are meant to see', async (t) => {
  const g = new Map<string, string[]>([
    ['core/a.ts', ['runtime/x.ts']],
    ['schemas/v.ts', ['safety/types.ts']],
    ['services/s.ts', ['runtime/cli/errors.ts', 'platform/cli-error.ts']],
    ['runtime/y.ts', ['test-support/cli.ts', 'services/s.ts']],
    ['runtime/hub/feature.ts', ['runtime/hub/testing/scope-table.ts', 'runtime/hub/test-helpers.ts', 'runtime/hub/types.ts']],
    ['services/index/x.ts', ['services/registry/testing/fixtures.ts']],
    ['runtime/p.ts', ['runtime/q.ts']],
    ['runtime/q.ts', ['runtime/r.ts']],
    ['runtime/r.ts', ['runtime/p.ts']],
  ]);
  t.same(upwardImports(g), [
    'core/a.ts → runtime/x.ts (core may not import runtime)',
    'schemas/v.ts → safety/types.ts (schemas may not import safety)',
    'services/s.ts → runtime/cli/errors.ts (services may not import runtime)',
    'runtime/y.ts → test-support/cli.ts (test code)',
    'runtime/hub/feature.ts → runtime/hub/testing/scope-table.ts (test code)',
    'runtime/hub/feature.ts → runtime/hub/test-helpers.ts (test code)',
    'services/index/x.ts → services/registry/testing/fixtures.ts (test code)',
  ]);
  t.same(cycles(g), [['runtime/p.ts', 'runtime/q.ts', 'runtime/r.ts']]);
  const real = importGraph(repoRoot);
  t.ok((real.get('runtime/hub/sessions/sessions.ts') ?? []).includes('runtime/hub/sessions/driver.ts'), 'the real graph has real edges');
});
