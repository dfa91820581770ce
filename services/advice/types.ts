/**
 * AdviceRequest and AdviceResponse (the shapes of the reference's advice examples, with this project's `svc`
 * version) and the intents advice answers: the uses the agent card names.
 */
import type { Json } from '../index/entry.js';

/** Intents and the words that name them in a path (`/advise/{intent}`). */
export const INTENTS = ['cook_from', 'recover', 'store', 'feed', 'personalize'] as const;
export type Intent = (typeof INTENTS)[number];

/** Other names of the intents (the agent card's uses). */
export const INTENT_ALIASES: Record<string, Intent> = {
  what_can_i_cook: 'cook_from',
  fix_mistake: 'recover',
  rescue: 'recover',
  rescue_meal: 'recover',
  store_food: 'store',
  feed_people: 'feed',
  personalize_portions: 'personalize',
};

export function intentOf(name: string): Intent | undefined {
  return (INTENTS as readonly string[]).includes(name) ? (name as Intent) : INTENT_ALIASES[name];
}

export type Verdict = 'safe' | 'safe_with_conditions' | 'unsafe_discard' | 'refused';

export interface SafetyNote {
  verdict: Verdict;
  conditions?: string[];
  reasons?: string[];
  rulesApplied?: string[];
}

export interface Evidence {
  kind: 'recipe' | 'rule' | 'playbook' | 'reference' | 'capability' | 'inventory' | 'household';
  ref: string;
  /** A citable source for a table row (title and URL). */
  source?: { title: string; url: string };
}

export interface AdviceOption {
  id: string;
  rank: number;
  kind: string;
  title: Record<string, string>;
  recipeIds?: string[];
  /** Servings each recipe is planned for (apply_advice uses them). */
  servings?: number;
  coverage?: Json;
  impact?: Json;
  requires?: Json;
  patch?: Json;
  storagePlan?: Json;
  portionPlan?: Json;
  productionPlan?: Json;
  confidence: number;
  safety: SafetyNote;
  evidence: Evidence[];
  explanation?: Record<string, string>;
}

export interface AdviceRequest {
  $kind?: 'AdviceRequest';
  id?: string;
  intent?: string;
  text?: string;
  asker?: { kind: string; id: string };
  context?: Json;
  query?: Json;
}

export interface AdviceResponse {
  $kind: 'AdviceResponse';
  svc: string;
  requestId?: string;
  responseId: string;
  intent: Intent;
  status: 'answered' | 'no_options' | 'refused';
  safety: SafetyNote;
  options: AdviceOption[];
  warnings?: Record<string, string>[];
  /** What the answer was built from: `request` (stateless index) or `hub` (inventory, household, devices, mode). */
  context: { source: 'request' | 'hub'; used: string[] };
  engine: { version: string; components: string[]; llm: { used: false } };
  generatedAt: string;
}

export const ENGINE_VERSION = 'hearth-advice-1';
