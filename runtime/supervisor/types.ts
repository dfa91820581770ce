/**
 * The seam between the executor (and anything else that wants heat) and the actuators. Nothing drives a
 * HeaterOutput except the supervisor. See ../../docs/safety.md.
 */
import type { DetectorReason } from '../../safety/detectors/types.js';

/** What a caller wants from one heater during one step. */
export interface HeatRequest {
  heater: string;
  /** Requested power 0..1; the supervisor may grant less (or nothing). */
  power: number;
  /** The svc op of the step (selects limits by appliesTo.ops). */
  op: string;
  /** Envelope medium of the step (selects limits by appliesTo.medium). */
  medium?: string;
  /** The step's target temperature, if any: the supervisor clamps it to the effective maximum. */
  targetC?: number;
  /** The recipe's narrowing for this step (it can only lower limits). */
  recipeMaxC?: number;
  /** Who asks (execution id), for the log and the safety event. */
  owner: string;
}

export interface HeatGrant {
  granted: boolean;
  power: number;
  /** Effective max temperature in force for this request (°C). */
  effectiveMaxC?: number;
  /** Target after clamping to the effective limits. */
  targetC?: number;
  reason?: string;
}

/** What the detectors report (safety/detectors), and what the supervisor itself trips on. */
export type TripReason = DetectorReason | 'watchdog' | 'estop' | 'limit_raise_attempt' | 'unclean_stop';

export interface SafetyTrip {
  id: string;
  reason: TripReason;
  /** Which limit, sensor or heater the trip is about. */
  subject: string;
  message: string;
  /** What a person should check before resetting. */
  hint: string;
  at: string; // RFC 3339
  /** The action taken: cut_heat, stop_all, … */
  action: string;
  reading?: number;
  limit?: number;
  /** Who or what stopped, when it came from outside the supervisor (`human Amal`, `button`, `mqtt client c1`). */
  source?: string;
  /** The reason the stopper gave (an e-stop's `reason`), when one was given. */
  statedReason?: string;
}

/** Who asked for a stop, and why in their words. */
export interface StopOrigin {
  source: string;
  statedReason?: string;
}

export interface SupervisorStatus {
  latched: boolean;
  trip?: SafetyTrip;
  /** `wire: 'cut'`: the heat guard cut the heater's wire (power then says 0, whatever was asked). */
  heaters: Record<string, { power: number; wire?: 'cut'; leaseExpiresAt?: number; owner?: string }>;
}

export interface SafetySupervisor {
  /** Ask for heat; renews the lease for this heater when granted. */
  requestHeat(req: HeatRequest): HeatGrant;
  /** Drop heat on one heater (lease released). */
  release(heater: string, owner: string): void;
  /** Cut every heater now and latch a stop with `reason` (and who asked, when known). Never throws; idempotent. */
  cutAll(reason: TripReason, message: string, origin?: StopOrigin): SafetyTrip;
  /** Clear a latched trip. Only a person may call this (the caller checks who). */
  reset(by: string): boolean;
  /** Latch again a trip a previous process left latched (runtime/supervisor/latch-store.ts): heat is cut, no event. */
  restore(trip: SafetyTrip): void;
  /**
   * Record the words a stopper gave after its stop latched (a REST e-stop's body arrives after heat is cut) on the
   * latched trip, when it is still `tripId` and came from `source` and no reason was stated yet. Changes nothing
   * else (heat is already off). Returns the trip as it now stands, or undefined when it does not apply.
   */
  stateReason(tripId: string, source: string, reason: string): SafetyTrip | undefined;
  status(): SupervisorStatus;
  start(): Promise<void>;
  stop(): Promise<void>;
}
