/** What the supervisor is given, and what it offers beyond SafetySupervisor. */
import type { Clock, Rig } from '../../drivers/types.js';
import type { SafetyLimits } from '../../safety/types.js';
import type { EventBus } from '../events/bus.js';
import type { CheckParams } from './checks.js';
import type { EffectiveMax } from './effective-limits.js';
import type { ReportedCut } from './first-cut.js';
import type { SafetySupervisor, SafetyTrip } from './types.js';
import type { Watchdog } from './watchdog.js';

export interface SupervisorContext {
  rig: Rig;
  bus: EventBus;
  clock: Clock;
  /** Device configuration and pack limits; the strictest applicable limit wins. */
  limits: SafetyLimits[];
  /** Sampling period in clock ms (default 250). */
  sampleMs?: number;
  /** Heat lease length in clock ms (default 3000). */
  leaseMs?: number;
  log?: (entry: Record<string, unknown>) => void;
  /** Detector tuning; defaults in checks.ts. */
  checks?: Partial<CheckParams>;
  /** Watchdog: real-time stall threshold in ms (default 200), or false on rigs without reachable outputs. */
  watchdogStallMs?: number;
  /** Clock ms with every heater off and no lease after which the watchdog's thread is stopped (default 20000). */
  watchdogIdleMs?: number;
  /** How a heater's wire stands as its holder (the heat guard) reports it: `cut` makes status say it is off. */
  wire?: (heater: string) => 'on' | 'off' | 'cut' | undefined;
}

export interface LimitChangeResult {
  accepted: boolean;
  refused?: Array<{ id: string; from: number; to: number; what?: string }>;
}

export interface Supervisor extends SafetySupervisor {
  /** Run one sample now (the interval calls this; tests and benchmarks may too). */
  sample(): Promise<void>;
  /** A proposed limit set: tightening is accepted, any loosening is refused and reported as a safety event. */
  attemptLimitChange(proposed: SafetyLimits, by: string): LimitChangeResult;
  /** The effective max for a heater and step, as requestHeat would use it. */
  effectiveMax(heater: string, sel: { op: string; medium?: string; recipeMaxC?: number }): EffectiveMax | null;
  /** A control outside this loop (the heat guard) cut: cut here too, latch naming who cut first (first-cut.ts). */
  reportCut(cut: ReportedCut): void;
  /** Cut every heater and latch a trip made elsewhere (an unclean stop found at start-up); as cutAll. */
  latchTrip(t: Omit<SafetyTrip, 'id' | 'at'>): SafetyTrip;
  readonly watchdog?: Watchdog;
}
