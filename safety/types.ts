/**
 * Shapes the safety kernel reads and writes: recipes (the parts the kernel needs), device capability
 * documents, SafetyLimits packs, operation envelopes and dry-run plans. Documents arrive as `unknown` and are
 * narrowed defensively; these types describe what a well-formed document looks like.
 */

// Bands and envelopes are part of the data contract (the vocabulary's operations carry them): defined in schemas/.
export type { Band, Envelope } from '../schemas/envelope-types.js';

/** `until` of a process node: end conditions and the time window. */
export interface Until {
  any?: Record<string, unknown>[];
  all?: Record<string, unknown>[];
  minTime?: string;
  maxTime?: string;
}

/** One step of a recipe's process graph. */
export interface ProcessNode {
  id: string;
  op: string;
  inputs?: string[];
  output?: string;
  equipment?: string[];
  params?: Record<string, unknown>;
  until?: Until;
  onTimeout?: string;
  hazards?: string[];
  attention?: string;
  /** Who may do the step; default `["any"]`. */
  assignment?: { allowed?: string[]; [k: string]: unknown };
  notes?: unknown;
  [k: string]: unknown;
}

/** A recipe document, as far as the kernel reads it. `svc` is written; `cookwala` is accepted when read. */
export interface Recipe {
  svc?: string;
  cookwala?: string;
  id: string;
  revision?: number;
  process: { nodes: ProcessNode[]; edges?: unknown; parallelGroups?: string[][] };
  hash?: string;
  signature?: unknown;
  [k: string]: unknown;
}

/** A sensor a device declares. */
export interface SensorDecl {
  sensor: string;
  accuracy?: number;
  /** absent or `ok` means healthy. */
  state?: string;
  calibration?: { lastAt?: string; validUntil?: string; by?: string };
  visionCues?: string[];
  [k: string]: unknown;
}

/** A device capability document. */
export interface Capabilities {
  svc?: string;
  cookwala?: string;
  actor?: { kind?: string; id?: string; vendor?: string; model?: string; [k: string]: unknown };
  roles?: string[];
  capabilities: {
    ops: { op: string; executable?: boolean; [k: string]: unknown }[];
    sensors?: SensorDecl[];
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

export type LimitKind =
  | 'max_temp'
  | 'min_core_temp'
  | 'time_temp'
  | 'allergen_block'
  | 'unattended'
  | 'pressure'
  | 'smoke_or_fire'
  | 'stop'
  | 'untrusted_input';

export type LimitAction = 'refuse_start' | 'cut_heat' | 'stop_motion' | 'stop_all' | 'ask_human' | 'alert';

/** One safety limit (semantics §6). */
export interface SafetyLimit {
  id: string;
  kind: LimitKind | string;
  appliesTo?: { medium?: string; ops?: string[]; foodClass?: string };
  min?: number;
  max?: number;
  unit?: string;
  /** ISO 8601 duration. */
  holdFor?: string;
  action?: LimitAction | string;
  message?: string;
  source?: string;
}

/** A SafetyLimits pack. `core`, `kind`, `id` and `version` are present on published packs. */
export interface SafetyLimits {
  core?: string;
  kind?: 'SafetyLimits' | string;
  id?: string;
  version?: string;
  status?: string;
  limits: SafetyLimit[];
  disclaimer?: string;
}

/** Reasons the dry run (and the executor's start checks) can refuse with. */
export type RefusalReason =
  | 'invalid_input'
  | 'unsupported_version'
  | 'recipe_hash_mismatch'
  | 'recipe_recalled'
  | 'missing_equipment'
  | 'missing_capability'
  | 'missing_sensor_no_fallback'
  | 'envelope_out_of_range'
  | 'safety_limit'
  | 'allergen_block'
  | 'not_authorized'
  | 'mandate_scope'
  | 'needs_human_present'
  | 'busy';

export interface Refusal {
  reason: RefusalReason | string;
  /** The process node that failed ('' when the document as a whole is unusable). */
  node: string;
  detail: string;
}

export type VerifiedBy = 'sensor' | 'model' | 'time' | 'human';

/** One planned step. The optional fields help the executor run it. */
export interface PlanItem {
  node: string;
  op: string;
  by: 'device' | 'human';
  verifiedBy: VerifiedBy;
  /** The ladder rung that holds (a sensor id or cue, `model`, `time`, `human`). */
  rung?: string;
  /**
   * The rungs after `rung` that also held at the dry run, best first: what the executor may fall back to when
   * the rung's sensor fails mid-step (absent when there are none).
   */
  fallbacks?: string[];
  /** The envelope medium. */
  medium?: string;
  /** The step's target temperature in °C. */
  targetC?: number;
  /** The highest temperature the step may reach: envelope max, lowered by any applicable limit. */
  maxC?: number;
  /** The envelope's `unattended` flag. */
  unattended?: boolean;
  /** The step's minimum time in seconds (until.minTime, or params.durationS / params.time). */
  durationS?: number;
}

export interface DryRunResult {
  state: 'accepted' | 'refused';
  plan: PlanItem[];
  refusal?: Refusal;
}
