/**
 * The house is one-way (docs/CONTRIBUTING.md, "Layers"): each top-level folder may import only the folders
 * below it, production code never imports test-support/, hil-tests/ or the test code beside it (testing/ folders,
 * test-*.ts: the scope table of runtime/hub/testing/ is for the scope matrix and the fuzz harness only), and no two modules import each other,
 * directly or around a loop (type-only imports included: a type cycle is still a design cycle).
 *
 * Inside the house, two rules keep the rooms findable: a domain of the hub (a folder of runtime/hub/ but testing/) is
 * reached from outside it only through its entry module, its index.ts, never by importing its other files; and no
 * folder of production code holds more than 25 source modules (tests and the test helpers beside them not counted).
 * The map of the house in docs/CONTRIBUTING.md has a line for every top-level folder and every room, and no more.
 *
 * The graph is read from the sources, relative imports only (packages are not ours to order).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/** The hub's domains: every folder of runtime/hub/ except testing/. */
export function hubDomains(root: string): string[] {
  return readdirSync(join(root, HUB), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'testing')
    .map((d) => d.name)
    .sort();
}
const HUB = 'runtime/hub';

/** Imports from outside a hub domain into its files other than its entry module (`<domain>/index.ts`). */
export function domainReaches(graph: Map<string, string[]>, domains: string[]): string[] {
  const domainOf = (f: string): string | undefined => {
    const parts = f.split('/');
    const d = parts[2];
    return f.startsWith(`${HUB}/`) && parts.length > 3 && d && domains.includes(d) ? d : undefined;
  };
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    const own = domainOf(from);
    for (const to of targets) {
      const d = domainOf(to);
      if (d && d !== own && to !== `${HUB}/${d}/index.ts`) bad.push(`${from} → ${to} (only ${HUB}/${d}/index.ts is the domain's entry)`);
    }
  }
  return bad;
}

/** Folders of production code and the source modules directly in each (tests and test helpers not counted). */
export const SIZE_LIMIT = 25;
const SOURCE = /\.(ts|mts|mjs|js|cjs)$/;
export function folderSizes(root: string): Map<string, number> {
  const sizes = new Map<string, number>();
  const walk = (dir: string) => {
    let n = 0;
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const f = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'testing') walk(f);
      } else if (SOURCE.test(e.name) && !TEST_CODE.test(f)) n++;
    }
    sizes.set(dir, n);
  };
  for (const top of [...LAYERS, 'flows', 'scripts']) walk(top);
  return sizes;
}
export const crowded = (sizes: Map<string, number>): string[] =>
  [...sizes].filter(([, n]) => n > SIZE_LIMIT).map(([dir, n]) => `${dir}: ${n} source modules (at most ${SIZE_LIMIT})`);

t.test('no production module imports up the house or into test code', async (t) => {
  t.same(upwardImports(importGraph(repoRoot)), []);
});

t.test('no import cycles, type-only imports included', async (t) => {
  t.same(cycles(importGraph(repoRoot)), []);
});

t.test('a hub domain is reached only through its entry module', async (t) => {
  const domains = hubDomains(repoRoot);
  t.ok(domains.includes('sessions') && domains.includes('relief'), 'the hub has its domain folders');
  for (const d of domains) t.ok(existsSync(join(repoRoot, HUB, d, 'index.ts')), `${HUB}/${d} has its entry module`);
  t.same(domainReaches(importGraph(repoRoot), domains), []);
});

t.test(`no production folder holds more than ${SIZE_LIMIT} source modules`, async (t) => {
  const sizes = folderSizes(repoRoot);
  t.ok((sizes.get(HUB) ?? 0) > 0 && (sizes.get('core') ?? 0) > 0, 'the count sees the folders');
  t.same(crowded(sizes), []);
});

t.test('the map of the house in docs/CONTRIBUTING.md matches the tree', async (t) => {
  const map = readFileSync(join(repoRoot, 'docs/CONTRIBUTING.md'), 'utf8');
  const blocks = [...map.matchAll(/^```\n([\s\S]*?)^```$/gm)].map((m) => m[1]).join('');
  const listed = new Set([...blocks.matchAll(/^([a-z][a-z0-9-]*(?:\/[a-z][a-z0-9-]*)*)\/ /gm)].map((m) => m[1] as string));
  const folders = (dir: string) =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules' && e.name !== 'dist')
      .map((e) => (dir === '.' ? e.name : `${dir}/${e.name}`));
  const tree = [...folders('.'), ...folders(HUB), ...folders('services/index'), ...folders('services/recipe-api')];
  t.same(
    tree.filter((f) => !listed.has(f)),
    [],
    'every top-level folder, hub domain and index or recipe API room has its line',
  );
  t.same(
    [...listed].filter((f) => !existsSync(join(repoRoot, f))),
    [],
    'every folder the map names exists',
  );
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
  const h = new Map<string, string[]>([
    [
      'runtime/hub/market/market.ts',
      ['runtime/hub/kitchen/index.ts', 'runtime/hub/kitchen/mandates.ts', 'runtime/hub/market/market-routes.ts', 'runtime/hub/types.ts'],
    ],
    ['runtime/hub/feature.ts', ['runtime/hub/relief/index.ts', 'runtime/hub/relief/relief-store.ts']],
    ['runtime/mcp/tools.ts', ['runtime/hub/notify/notify.ts', 'runtime/hub/testing/scope-table.ts']],
  ]);
  t.same(domainReaches(h, ['kitchen', 'market', 'notify', 'relief']), [
    "runtime/hub/market/market.ts → runtime/hub/kitchen/mandates.ts (only runtime/hub/kitchen/index.ts is the domain's entry)",
    "runtime/hub/feature.ts → runtime/hub/relief/relief-store.ts (only runtime/hub/relief/index.ts is the domain's entry)",
    "runtime/mcp/tools.ts → runtime/hub/notify/notify.ts (only runtime/hub/notify/index.ts is the domain's entry)",
  ]);
  t.same(
    crowded(
      new Map([
        ['runtime/hub', 26],
        ['core', 25],
      ]),
    ),
    ['runtime/hub: 26 source modules (at most 25)'],
  );
  const real = importGraph(repoRoot);
  t.ok((real.get('runtime/hub/sessions/sessions.ts') ?? []).includes('runtime/hub/sessions/driver.ts'), 'the real graph has real edges');
});
