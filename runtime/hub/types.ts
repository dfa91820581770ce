/**
 * The hub's records (spec §2.2, §3; semantics §8): sessions, tasks, inventory items, order intents. Session
 * states are the nine of semantics §8; task states are the agent-task states. Messages are language maps.
 */

export const SVC_VERSION = '0.2.0';

/** Every scope a hub token can carry (spec §5). */
export const SCOPES = ['read', 'cook', 'inventory', 'order:create', 'notify', 'admin', 'relief'] as const;
export type Scope = (typeof SCOPES)[number];

export const SESSION_STATES = [
  'draft',
  'planned',
  'awaiting_ingredients',
  'awaiting_confirmation',
  'running',
  'paused',
  'completed',
  'aborted',
  'failed',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];
export const FINAL_SESSION_STATES: readonly SessionState[] = ['completed', 'aborted', 'failed'];

export const TASK_STATES = [
  'submitted',
  'working',
  'input_required',
  'auth_required',
  'completed',
  'failed',
  'canceled',
  'rejected',
] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const FINAL_TASK_STATES: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected'];

export const SESSION_MODES = ['guided', 'assisted', 'autonomous'] as const;

export type LangMap = Record<string, string>;

export interface Actor {
  id: string;
  kind: 'human' | 'agent' | 'device';
}

export interface SessionRecipe {
  recipeId: string;
  servings: number;
  hash: string;
  /** The execution that cooks this recipe, once started. */
  executionId?: string;
  /** Last known execution state and outcome. */
  execution?: { state: string; outcome?: string };
}

export interface Confirmation {
  /** Rule ids (`<policy set>/<rule>`) a person must acknowledge before the session may start. */
  requiredRules: string[];
  acknowledgedRules: string[];
  preparedBy?: Actor;
  preparedAt?: string;
  confirmedBy?: Actor;
  confirmedAt?: string;
}

export interface Session {
  svc: string;
  id: string;
  state: SessionState;
  recipes: SessionRecipe[];
  serveAt: string;
  mode: string;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
  confirmation: Confirmation;
  /** Index of the recipe being cooked (0-based) while running or paused. */
  current?: number;
  startedBy?: Actor;
  abort?: { reason: string; by?: Actor; at: string };
  failure?: { reason: string; detail: string; at: string };
}

/** `team_step`: one step of a recipe a team plan gave to an actor (runtime/hub/coordination/team.ts). */
export type TaskKind = 'confirm_session' | 'cooking_check' | 'team_step';

export interface Task {
  id: string;
  sessionId: string;
  kind: TaskKind;
  state: TaskState;
  assignee: Actor;
  message: LangMap;
  createdAt: string;
  updatedAt: string;
  /** For cooking checks: the execution waiting for a person. */
  executionId?: string;
  /** For confirmations: the rules to acknowledge. */
  rules?: string[];
  answer?: { value: string; by: Actor; at: string };
  /** For team steps: the step (`<recipeId>#<nodeId>`), its op, and its slot in the team plan. */
  step?: { ref: string; op: string; planId: string; start: string; end: string };
  /** The handoff moving this task, as it last stood (runtime/hub/coordination/handoffs.ts). */
  handoff?: { id: string; state: string; to: { id: string; kind: string } };
}

/** Who a task for "a person of this household" is assigned to. */
export const HOUSEHOLD: Actor = { id: 'household', kind: 'human' };
