/** The Core API documents the executor reads and writes (semantics §6; core.schema.json of the reference). */
import type { ExecutionState } from '../../core/execution-states.js';
import type { Refusal, VerifiedBy } from '../../safety/types.js';

/** The Core version this executor speaks; requests must carry 0.2.x. */
export const CORE_VERSION = '0.2.0';
export const CORE_VERSION_PATTERN = /^0\.2\.[0-9]+$/;

export interface AgentMandate {
  principal: string;
  agent: string;
  scopes: string[];
  expires: string;
  [k: string]: unknown;
}

export interface ExecuteRequest {
  core: string;
  kind: 'ExecuteRequest';
  id: string;
  recipe: string;
  recipeHash: string;
  requestedBy: string;
  idempotencyKey: string;
  servings?: number;
  serveBy?: string;
  mandate?: AgentMandate;
  allergenBlocks?: string[];
  operatingMode?: string;
  [k: string]: unknown;
}

export interface Reading {
  sensor: string;
  value: number;
  unit: 'degC';
  at?: string;
  estimated?: boolean;
}

export interface StepStatus {
  node: string;
  op: string;
  startedAt: string;
  progress: number;
  verifiedBy: VerifiedBy;
  readings: Reading[];
}

export interface ExecutionStatus {
  core: string;
  kind: 'ExecutionStatus';
  id: string;
  request: string;
  state: ExecutionState;
  seq: number;
  updatedAt: string;
  step?: StepStatus;
  eta?: string;
  refusal?: Refusal;
  humanNeeded?: { why: string; byWhen?: string };
  /** The safety trip that stopped the execution (or made a step fall back): reason, what, what to check. */
  'x-hearth-safety'?: { reason: string; subject: string; message: string; hint: string; at: string; action: string };
}

export type Outcome = 'served' | 'partial' | 'aborted_safe' | 'refused' | 'failed';

export type DeviationKind =
  | 'substitution'
  | 'extended_time'
  | 'shortened_time'
  | 'temperature_excursion'
  | 'skipped_optional'
  | 'human_took_over'
  | 'other';

export interface StepLog {
  node: string;
  op: string;
  startedAt?: string;
  endedAt?: string;
  verifiedBy: VerifiedBy;
  envelopeOk: boolean;
  summary?: { sensor: string; unit: 'degC'; min: number; max: number; end: number; estimated?: boolean }[];
  deviation?: { kind: DeviationKind; detail: string };
}

export interface LogEvent {
  at: string;
  kind:
    | 'restart'
    | 'shutdown'
    | 'safety_stop'
    | 'stop_requested'
    | 'step_failed'
    | 'presence_lost'
    | 'heat_refused'
    | 'sensor_fallback'
    | 'recalled';
  message: string;
  /** What a person should check (safety stops). */
  hint?: string;
}

export interface ExecutionLog {
  core: string;
  kind: 'ExecutionLog';
  id: string;
  recipe: string;
  recipeHash: string;
  device: { vendor: string; model: string; capabilitiesHash: string; safetyLimits: string };
  startedAt: string;
  endedAt?: string;
  outcome?: Outcome;
  servings?: number;
  steps: StepLog[];
  safetyEvents: { at: string; limit: string; action: string; node?: string }[];
  humanInterventions: { at: string; kind: 'confirm' | 'assist' | 'take_over' | 'stop' | 'refill' | 'other' }[];
  consent: { dataset: 'none' };
  privacy: { personalData: 'none' };
  /** What the device noted along the way (why it stopped, restarts): no personal data. */
  'x-hearth-events': LogEvent[];
}
