/**
 * `npm run bench -- start` on Node 24 as well: the Node 24 that `npm test` runs the suite on (scripts/test-node24.mjs,
 * under node_modules/.cache/hearth-node24, with better-sqlite3 built for it) starts both the floor and hearth.
 *
 * hearth needs better-sqlite3's Node 24 build where its bundle looks for it, without a loader hook (a preload would
 * load in its watchdog worker too and cost memory the floor does not pay). So this makes the tree an install on
 * Node 24 would have: node_modules/.cache/hearth-start-node24/ holds a copy of bin/ and dist/ (the bundle resolves
 * its packages from where its file is), links to examples/, schemas/ and the dashboard's page files, and
 * node_modules/better-sqlite3 linked to the Node 24 build; every other package is found further up, in the
 * project's node_modules. Then one warm-up start under Node 24 records the bundle's code cache, as `npm run build`
 * on Node 24 does (V8 refuses the Node 20 one).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
// @ts-expect-error: a plain .mjs script without type declarations
import * as runner from '../scripts/test-node24.mjs';

interface NodeBuild {
  bin: string;
  version: string;
}
interface NativePackage {
  name: string;
  version: string;
  dir: string;
}
const { buildDir, DEFAULT_CACHE, prepare, RunnerError } = runner as {
  buildDir: (cache: string, node: NodeBuild, pkg: NativePackage) => string;
  DEFAULT_CACHE: string;
  prepare: (cache: string, o: { build: boolean }) => { node: NodeBuild; pkgs: NativePackage[] };
  RunnerError: new (message: string) => Error;
};

export interface Node24Tree {
  /** The Node 24 binary. */
  node: string;
  version: string;
  /** bin/hearth.mjs of the tree. */
  hearth: string;
}

/** The Node 24 tree, or why there is none (a line to print). */
export async function node24Tree(root: string): Promise<Node24Tree | string> {
  let prepared: { node: NodeBuild; pkgs: NativePackage[] };
  try {
    prepared = prepare(DEFAULT_CACHE, { build: false });
  } catch (err) {
    if (err instanceof RunnerError) return err.message; // it says what to run
    throw err;
  }
  const { node, pkgs } = prepared;
  const sqlite = pkgs.find((p) => p.name === 'better-sqlite3');
  if (!sqlite) return 'better-sqlite3 has no build of its own for Node 24 in node_modules/.cache/hearth-node24';
  const tree = join(root, 'node_modules/.cache/hearth-start-node24');
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(join(tree, 'node_modules'), { recursive: true });
  mkdirSync(join(tree, 'runtime/dashboard'), { recursive: true });
  cpSync(join(root, 'package.json'), join(tree, 'package.json'));
  cpSync(join(root, 'bin'), join(tree, 'bin'), { recursive: true });
  // Not the Node 20 code cache: the warm-up below records Node 24's.
  cpSync(join(root, 'dist'), join(tree, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.cache') });
  const link = (target: string, at: string) => symlinkSync(relative(join(at, '..'), target), at);
  link(join(root, 'examples'), join(tree, 'examples'));
  link(join(root, 'schemas'), join(tree, 'schemas'));
  link(join(root, 'runtime/dashboard/public'), join(tree, 'runtime/dashboard/public'));
  link(buildDir(DEFAULT_CACHE, node, sqlite), join(tree, 'node_modules/better-sqlite3'));
  const hearth = join(tree, 'bin/hearth.mjs');
  await warmUp(node.bin, hearth);
  return { node: node.bin, version: node.version, hearth };
}

/** One start of the tree's hearth under Node 24 that writes the bundle's code cache when it exits. */
function warmUp(nodeBin: string, hearth: string): Promise<void> {
  const dataDir = join(tmpdir(), `hearth-start-node24-${process.pid}`);
  const child = spawn(nodeBin, [hearth, 'start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dataDir, '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // As scripts/build-bundle.mjs records it: V8's flags as a fresh process has them.
    env: { ...process.env, HEARTH_WRITE_CODE_CACHE: '1', HEARTH_YOUNG_GENERATION: 'grow', HEARTH_CODE_FLUSH: 'keep' },
  });
  let out = '';
  let asked = false;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /hearth ready (http:\/\/\S+)/.exec(out);
      if (!m || asked) return;
      asked = true;
      fetch(`${m[1]}/v1/safety-limits`)
        .then((r) => r.arrayBuffer())
        .catch(() => {})
        .finally(() => child.kill('SIGTERM'));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      if (code === 0 && asked) resolve();
      else reject(new Error(`the Node 24 warm-up start exited ${signal ?? code}:\n${out}`));
    });
  });
}
