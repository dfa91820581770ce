/**
 * collectGarbageNow and reduceMemoryNow: they collect, reduceMemoryNow only when asked for and where V8 can shrink
 * (12 and later), and both leave V8's flags as they were, so no later context gets a `gc` and a code cache written
 * afterwards carries a fresh process's flag hash.
 *
 * @own-process: it sets and clears a V8 flag of the whole process and forces full collections.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { collectGarbageNow, reduceMemoryNow } from './young-generation.js';

/** An object only a WeakRef holds, made in an earlier turn (a WeakRef keeps its target for the turn that made it). */
async function weaklyHeld(): Promise<WeakRef<object>> {
  const ref = new WeakRef({ payload: new Array(1000).fill('x') });
  await new Promise((r) => setImmediate(r));
  return ref;
}

const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
const v8Major = Number(process.versions.v8.split('.')[0]);

t.test('collectGarbageNow collects what nothing holds', async (t) => {
  const a = await weaklyHeld();
  collectGarbageNow();
  t.equal(a.deref(), undefined);
});

t.test('reduceMemoryNow, asked for: on V8 12 and later it collects and shrinks the young generation; before, nothing', async (t) => {
  // Grow the young generation first: many objects that survive a few scavenges.
  let keep: object[] | undefined = [];
  for (let i = 0; i < 300_000; i++) keep.push({ i });
  const grown = newSpace();
  keep = undefined;
  const b = await weaklyHeld();
  t.equal(reduceMemoryNow({}), false, 'not asked for (HEARTH_YOUNG_GENERATION unset): nothing');
  const ran = reduceMemoryNow({ HEARTH_YOUNG_GENERATION: 'shrink' });
  t.equal(ran, v8Major >= 12, `V8 ${process.versions.v8}: ran = ${ran}`);
  if (!ran) return;
  t.equal(b.deref(), undefined, 'collected');
  t.ok(newSpace() < grown, `young generation ${grown} → ${newSpace()} bytes`);
});

t.test('no context made afterwards sees a gc function: --expose-gc was cleared again', async (t) => {
  collectGarbageNow();
  reduceMemoryNow({ HEARTH_YOUNG_GENERATION: 'shrink' });
  t.equal(runInNewContext('typeof gc'), 'undefined');
  t.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'nor this one');
});
