/**
 * collectGarbageNow: it collects (plain and memory-reducing), and it leaves V8's flags as they were, so no later
 * context gets a `gc` and a code cache written afterwards carries a fresh process's flag hash.
 *
 * @own-process: it sets and clears a V8 flag of the whole process and forces full collections.
 */
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { collectGarbageNow } from './young-generation.js';

/** An object only a WeakRef holds, made in an earlier turn (a WeakRef keeps its target for the turn that made it). */
async function weaklyHeld(): Promise<WeakRef<object>> {
  const ref = new WeakRef({ payload: new Array(1000).fill('x') });
  await new Promise((r) => setImmediate(r));
  return ref;
}

t.test('a plain and a memory-reducing collection both collect what nothing holds', async (t) => {
  const a = await weaklyHeld();
  collectGarbageNow();
  t.equal(a.deref(), undefined, 'plain: collected');
  const b = await weaklyHeld();
  collectGarbageNow({ reduceMemory: true });
  t.equal(b.deref(), undefined, 'reduceMemory: collected');
});

t.test('no context made afterwards sees a gc function: --expose-gc was cleared again', async (t) => {
  collectGarbageNow({ reduceMemory: true });
  t.equal(runInNewContext('typeof gc'), 'undefined');
  t.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'nor this one');
});
