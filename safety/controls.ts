/**
 * The safety controls, by name, and the one seam through which the mutation run (`npm run hil:mutants`)
 * switches one off to prove that its scenario then fails.
 *
 * Production code asks `controlActive(id)` at the point where the control acts and skips the action only
 * when the answer is false. No config key, flag, environment variable, API or rig file can make it false.
 * The test harness (test-support/mutants.ts, in process, or its preload for a spawned process) puts a set of
 * disabled control names on a global registered under a private symbol; in the shipped code only
 * `hearth safety-report`'s mutation run (runtime/hil/mutation.ts) does, in its own process, around one
 * scenario at a time on the simulated rig with a manual clock, never with real heaters.
 */

/** Every control the mutation run must be able to kill. Each has at least one HIL scenario that fails without it. */
export const SAFETY_CONTROLS = [
  'over-limit',
  'stale-reading',
  'reading-fault',
  'thermal-runaway',
  'heating-while-off',
  'implausible-pair',
  'heater-lease',
  'loop-watchdog',
  'off-polarity',
  'safe-off-at-start',
  'data-dir-lock',
  'sd-watchdog-health',
  'appliance-heat-lease',
  'stop-any-body',
  'latch-persisted',
  'latch-reset-scope',
  'flows-os-nodes-excluded',
  'frozen-reading',
  'full-power-cap',
  'thermocouple-short',
  'medium-limit-any-op',
  'recall-stops-running',
  'heat-guard-lease',
] as const;

export type SafetyControl = (typeof SAFETY_CONTROLS)[number];

/** The registry key the test harness writes; not exported, so no production module can write it by name. */
const DISABLED = Symbol.for('hearth.test-support.disabled-safety-controls');

/** True unless the test harness has disabled this control for a mutation run. */
export function controlActive(id: SafetyControl): boolean {
  const disabled = (globalThis as Record<symbol, unknown>)[DISABLED];
  return !(disabled instanceof Set && disabled.has(id));
}
