#!/usr/bin/env node
/**
 * Bundle the compiled CLI (dist/runtime/cli/run.js) with esbuild into one CommonJS file, dist/bundle/hearth.cjs,
 * and record V8's code cache for it from a warm-up start, so that `hearth start` neither resolves and links ~620
 * ES modules (Node's loader reads, compiles and links each one) nor parses and compiles the code it runs: V8 reads
 * it back from dist/bundle/hearth.cjs.cache. dist/bundle/hearth.mjs (from scripts/bundle-entry.mjs) runs it;
 * bin/hearth.mjs imports that when the build is fresh. Run by `npm run build` after tsc; needs dist/.
 *
 * One file, not chunks: esbuild splits code only for ES modules, and only a script takes a code cache on Node 20.
 * What a start does not use (the advice engine, the hub's tools, GraphQL, the index and registry services) is in
 * the file but neither run nor compiled until first used: every `import()` of our own modules becomes a lazy
 * initialiser. runtime/app/module-graph.test.ts checks that laziness on the unbundled build, module by module.
 *
 * Kept out of the bundle (loaded from node_modules as before):
 * - native addons and what finds files of its own package at run time (better-sqlite3, the GPIO, I2C and serial
 *   bindings, Node-RED with its editor and nodes);
 * - the libraries a default start never loads (the MCP and A2A SDKs, zod, GraphQL, the MQTT client, Postgres,
 *   YAML, ajv), and what fastify requires only when used: in the bundle they would be parsed at every start.
 *
 * Our modules find files beside themselves through `import.meta.url` (schemas, the dashboard, the heat guard's
 * entry, the built validators). In the bundle every module's `import.meta.url` is rewritten to the URL its
 * compiled file has in dist/, so each one resolves exactly what it did unbundled.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outdir = join(dist, 'bundle');

const EXTERNAL = [
  // native addons, and packages that read files of their own at run time
  'better-sqlite3',
  'i2c-bus',
  'onoff',
  'epoll',
  'serialport',
  '@serialport/*',
  'node-red',
  '@node-red/*',
  // loaded only when their surface is used (runtime/app/module-graph.test.ts checks that a start does not)
  '@modelcontextprotocol/*',
  '@a2a-js/*',
  'zod',
  'graphql',
  'graphql-ws',
  'mercurius',
  'mqtt',
  'pg',
  'yaml',
  'ajv',
  'ajv/*',
  'ajv-formats',
  // what fastify and its dependencies require only when used (inject, cookies, its own schema compilers: a start
  // hands fastify prebuilt validators), so a start never parses them
  'light-my-request',
  'fast-uri',
  'event-target-shim',
  'abort-controller',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  '@fastify/merge-json-schemas',
  '@fastify/deepmerge',
  'json-schema-ref-resolver',
  'set-cookie-parser',
  'cookie',
  'dequal',
];

const BUNDLE = join(outdir, 'hearth.cjs');

/** esbuild plugin: each compiled module of ours keeps its own `import.meta.url` (see above). */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(`${dist}/`)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return {
        contents: text.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(`./${relative(outdir, args.path).split('\\').join('/')}`)}, __hearthBundleUrl).href`,
        ),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

/**
 * Replace a file whole (write aside, then rename): a test suite may start the CLI while a test rebuilds, and a
 * process must read either the old file or the new one, never half of one.
 */
async function replaceFile(file, data) {
  const aside = `${file}.${process.pid}.tmp`;
  await writeFile(aside, data);
  await rename(aside, file);
}

await mkdir(outdir, { recursive: true });
const built = await esbuild.build({
  write: false,
  absWorkingDir: root,
  entryPoints: [join(dist, 'runtime/cli/run.js')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: BUNDLE,
  external: EXTERNAL,
  plugins: [ownUrls],
  logLevel: 'warning',
  charset: 'ascii', // read back as latin1 by the entry: one byte a character
  // import() of a package kept out becomes require() (Node 20.19+ requires ES modules too): a script compiled
  // through node:vm with a code cache has no working import() on Node 20 without experimental flags.
  supported: { 'dynamic-import': false },
  // A function expression, compiled by the entry through node:vm (which gives it the CommonJS arguments).
  banner: {
    js: '(function (exports, require, module, __filename, __dirname) {\nconst __hearthBundleUrl = require("node:url").pathToFileURL(__filename).href;',
  },
  footer: { js: '\n})' },
});
const [code] = built.outputFiles;
if (!code || code.path !== BUNDLE) throw new Error(`esbuild wrote ${built.outputFiles.map((f) => f.path).join(', ')}, not ${BUNDLE}`);
// The code caches of the bundle being replaced go first: the warm-ups below record the new ones, and a warm-up that
// fails leaves no cache rather than the old bundle's beside the new one (each cache also carries a stamp of the
// bundle it was recorded from, which scripts/bundle-entry.mjs checks: V8 itself checks only the source's length).
for (const f of await readdir(outdir)) if (f.endsWith('.cache')) await rm(join(outdir, f), { force: true });
await replaceFile(BUNDLE, code.contents);
await replaceFile(join(outdir, 'hearth.mjs'), await readFile(join(root, 'scripts/bundle-entry.mjs')));

/**
 * One warm-up: run the bundle with `args` until it prints `ready` (capturing its URL), GET each of `paths` in turn,
 * stop it; its exit writes the code cache of everything that ran (scripts/bundle-entry.mjs: the start's, or the
 * recipe API's own). It runs with V8's flags left as a fresh process has them (HEARTH_YOUNG_GENERATION=grow,
 * HEARTH_CODE_FLUSH=keep: no flag set at run time): the cache carries a hash of the flags in force when it is
 * written, and V8 refuses a cache whose hash differs from the reading process's at compile time (Node 24's always;
 * Node 20's when flags are given on the command line). A failed request still stops the warm-up: the cache then
 * holds what ran until then.
 */
function warmUp(args, ready, paths) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(outdir, 'hearth.mjs'), ...args], {
      cwd: root,
      env: { ...process.env, HEARTH_WRITE_CODE_CACHE: '1', HEARTH_YOUNG_GENERATION: 'grow', HEARTH_CODE_FLUSH: 'keep' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let asked = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const ask = async (url) => {
      for (const path of paths)
        await fetch(`${url}${path}`)
          .then((r) => r.arrayBuffer())
          .catch(() => {});
    };
    const onData = (d) => {
      out += d.toString();
      const m = ready.exec(out);
      if (!m || asked) return;
      asked = true;
      ask(m[1]).finally(() => child.kill('SIGTERM'));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && asked) resolve();
      else reject(new Error(`the warm-up \`hearth ${args[0]}\` exited ${signal ?? code}:\n${out}`));
    });
  });
}

// The start's cache: `hearth start` as the unit runs it (simulated rig, a fresh data directory), the safety limits
// asked once.
const dataDir = await mkdtemp(join(tmpdir(), 'hearth-bundle-'));
try {
  await warmUp(
    ['start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
    /hearth ready (http:\/\/\S+)/,
    ['/v1/safety-limits'],
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}

// The recipe API's own cache: `hearth recipe-api serve` over a small generated catalog, a full load that writes its
// index cache (what a first start does), then the searches of the bench's mix and a recipe's parts, so that a cold
// start reads back the load's code and its first answers' instead of compiling them (docs/recipe-api.md).
const warmDir = await mkdtemp(join(tmpdir(), 'hearth-bundle-recipes-'));
try {
  const { generateCatalog } = await import(pathToFileURL(join(dist, 'services/catalog/generate.js')).href);
  const recipes = join(warmDir, 'catalog');
  await mkdir(recipes);
  const files = generateCatalog(60, 'bundle-warm-up', 'catalog');
  for (const f of files) await writeFile(join(recipes, f.name), f.text);
  const id = JSON.parse(files[0].text).id;
  await warmUp(
    ['recipe-api', 'serve', '--catalog', recipes, '--port', '0', '--index-cache', join(warmDir, 'index.cache')],
    /recipe API serving .* at (http:\/\/\S+)/,
    [
      '/api/search?q=lentil%20soup',
      '/api/search?q=lentl%20soup',
      '/api/search?q=shakshuka&diet=vegetarian',
      '/api/search?diet=halal&sort=-protein',
      '/api/search?kids=true&limit=25',
      '/api/search?method=bake&cost_tier=budget',
      '/api/search?ingredient=lentils&exclude_ingredient=onion',
      `/api/recipes/${encodeURIComponent(id)}?include=all`,
    ],
  );
} finally {
  await rm(warmDir, { recursive: true, force: true });
}
const size = async (f) => ((await readFile(f)).length / 1024).toFixed(0);
process.stdout.write(
  `dist/bundle: hearth.cjs ${await size(BUNDLE)} KiB, its code caches ${await size(`${BUNDLE}.cache`)} KiB (start) and ${await size(`${BUNDLE}.recipe-api.cache`)} KiB (recipe API)\n`,
);
