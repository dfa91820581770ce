// The `hearth` CLI from its bundle: copied by scripts/build-bundle.mjs to dist/bundle/hearth.mjs, beside
// hearth.cjs (the whole CLI in one CommonJS file) and hearth.cjs.cache (V8's code cache for it). bin/hearth.mjs
// imports this file when the build is fresh.
//
// The bundle is compiled through node:vm with the code cache the build recorded, so V8 neither parses the
// source nor compiles the functions a start runs: it reads them back. A cache V8 rejects (another Node or V8
// version, other V8 flags) only costs that saving: the source is compiled as usual and runs the same.
// `hearth recipe-api serve` has a cache of its own, hearth.cjs.recipe-api.cache, recorded from a warm-up of that
// command: the code it runs (the catalog's load, its routes) is little of what `hearth start` runs, and a start
// pays to read back every function of its cache. HEARTH_WRITE_CODE_CACHE=1 (the build's warm-ups only) writes the
// command's cache when the process exits; HEARTH_CODE_CACHE_REPORT=1 says on stderr whether V8 took the cache
// (`hearth: code cache used`, with `(recipe-api)` for that command's; `stale`, `rejected` or `none` otherwise).
//
// A cache file begins with a stamp of the bundle it was recorded from (its length and modification time, read from
// the file the process compiles), and a cache whose stamp is not the bundle's is not handed to V8: V8 checks only
// the source's length, so a changed hearth.cjs of the same length would run the old code from the cache. A content
// hash was measured and left: a CRC-32 of the 3.2 MB bundle (node:zlib) added ~2.4 ms to a start on x64 Node 20,
// ~1 ms the hash and the rest loading zlib, which `recipe-api serve` does not otherwise load; this costs a stat.
import { closeSync, existsSync, fstatSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const file = fileURLToPath(new URL('./hearth.cjs', import.meta.url));
const write = process.env.HEARTH_WRITE_CODE_CACHE === '1';
// The command's own cache when the build recorded one (else the start's, which holds the CLI and Fastify).
const ownFile = process.argv[2] === 'recipe-api' && process.argv[3] === 'serve' ? `${file}.recipe-api.cache` : undefined;
const own = ownFile !== undefined && (write || existsSync(ownFile));
const cacheFile = own ? ownFile : `${file}.cache`;
delete process.env.HEARTH_WRITE_CODE_CACHE; // not for the heat guard or any other child
// The stamp from the very file read (one descriptor): a bundle replaced meanwhile cannot pass as this one.
const fd = openSync(file, 'r');
const { size, mtimeNs } = fstatSync(fd, { bigint: true });
const source = readFileSync(fd, 'latin1');
closeSync(fd);
/** The stamp a cache recorded from this bundle begins with. */
const stamp = Buffer.from(`hearth.cjs code cache: ${size} bytes, modified ${mtimeNs} ns\n`, 'latin1');
let cachedData;
let stale = false;
if (!write && existsSync(cacheFile)) {
  const cache = readFileSync(cacheFile);
  if (cache.length > stamp.length && cache.subarray(0, stamp.length).equals(stamp)) cachedData = cache.subarray(stamp.length);
  else stale = true;
}
// hearth.cjs is already wrapped as a function expression of (exports, require, module, __filename, __dirname).
const script = new vm.Script(source, {
  filename: file,
  cachedData,
});
if (process.env.HEARTH_CODE_CACHE_REPORT === '1')
  process.stderr.write(
    `hearth: code cache ${stale ? 'stale' : !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used'}${own ? ' (recipe-api)' : ''}\n`,
  );
if (write)
  process.once('exit', () => {
    // Aside, then renamed: a process starting meanwhile reads the old cache or the new one, never half of one.
    writeFileSync(`${cacheFile}.${process.pid}.tmp`, Buffer.concat([stamp, script.createCachedData()]));
    renameSync(`${cacheFile}.${process.pid}.tmp`, cacheFile);
  });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, fileURLToPath(new URL('.', import.meta.url)));
