/**
 * The mutation run's side of the seam in safety/controls.ts: switch safety controls off in this process by
 * putting their names on the global registered under the private symbol `controlActive` reads. Only tests
 * and `npm run hil:mutants` import this; production code never does.
 */
import type { SafetyControl } from '../safety/controls.js';

const DISABLED = Symbol.for('hearth.test-support.disabled-safety-controls');

/** Run `fn` with `controls` switched off, and switch them back on afterwards whatever happens. */
export async function withDisabled<T>(controls: readonly SafetyControl[], fn: () => Promise<T>): Promise<T> {
  const g = globalThis as Record<symbol, unknown>;
  g[DISABLED] = new Set(controls);
  try {
    return await fn();
  } finally {
    delete g[DISABLED];
  }
}
