/**
 * "What can this kitchen cook?" For every recipe, the dry run (semantics §3) runs without a person present and,
 * if that refuses, with one. A recipe is a match when either run is accepted; the answer says how much the
 * kitchen automates and which steps need a person (done by a person, or done by the device only while a
 * person is present). Recalled revisions never match.
 */
import { dryRun } from '../../../safety/dry-run.js';
import type { DryRunResult, Refusal } from '../../../safety/types.js';
import { opEnvelope } from '../../../schemas/vocab.js';
import { type Catalog, isRecalled } from '../catalog.js';
import { type IndexEntry, indexEntry, type Json } from '../entry.js';

export class MatchInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MatchInputError';
  }
}

export interface MatchItem {
  entry: IndexEntry;
  /** Accepted with nobody present. */
  unattended: boolean;
  /** Share of the steps the kitchen's devices do (0–1), in the plan that was accepted. */
  automationCoverage: number;
  /** Steps a person does. */
  humanSteps: string[];
  /** Steps the device does but only while a person is present. */
  presenceSteps: string[];
  /** Why the run without a person was refused, when it was. */
  unattendedRefusal?: Refusal;
}

export interface MatchResult {
  total: number;
  offset: number;
  limit: number;
  items: MatchItem[];
}

function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function checkCaps(doc: unknown, where: string): Json {
  const caps = obj(doc);
  const inner = obj(caps?.capabilities);
  if (!caps || !inner || !Array.isArray(inner.ops))
    throw new MatchInputError(`${where} must be a capabilities document with capabilities.ops[]`);
  if (inner.sensors !== undefined && !Array.isArray(inner.sensors))
    throw new MatchInputError(`${where}: capabilities.sensors must be an array`);
  return caps;
}

/**
 * The kitchen described by a request body: one capabilities document, or `{actors: [capabilities…]}` whose
 * ops and sensors are pooled (every actor of the kitchen counts).
 */
export function kitchenOf(body: unknown): Json {
  const b = obj(body);
  if (!b) throw new MatchInputError('the body must be a JSON object: a capabilities document or {actors:[…]}');
  if (!Array.isArray(b.actors)) return checkCaps(b, 'the body');
  if (b.actors.length === 0 || b.actors.length > 50) throw new MatchInputError('actors must list 1 to 50 capabilities documents');
  const actors = b.actors.map((a, i) => checkCaps(a, `actors[${i}]`));
  const ops: unknown[] = [];
  const sensors: unknown[] = [];
  for (const a of actors) {
    const inner = a.capabilities as Json;
    ops.push(...(inner.ops as unknown[]));
    if (Array.isArray(inner.sensors)) sensors.push(...inner.sensors);
  }
  return { svc: '0.2.0', actor: { kind: 'kitchen', id: 'pooled' }, capabilities: { ops, sensors } };
}

export interface PlanPreview {
  withoutPerson: DryRunResult;
  withPerson: DryRunResult;
}

export function planPreview(recipe: Json, kitchen: Json, now: Date): PlanPreview {
  const withoutPerson = dryRun({ recipe, capabilities: kitchen, humanPresent: false, now });
  const withPerson =
    withoutPerson.state === 'accepted' ? withoutPerson : dryRun({ recipe, capabilities: kitchen, humanPresent: true, now });
  return { withoutPerson, withPerson };
}

export function matchOne(recipe: Json, kitchen: Json, now: Date): Omit<MatchItem, 'entry'> | undefined {
  const { withoutPerson, withPerson } = planPreview(recipe, kitchen, now);
  const accepted = withoutPerson.state === 'accepted' ? withoutPerson : withPerson.state === 'accepted' ? withPerson : undefined;
  if (!accepted) return undefined;
  const steps = accepted.plan.length;
  const device = accepted.plan.filter((p) => p.by === 'device');
  const item: Omit<MatchItem, 'entry'> = {
    unattended: accepted === withoutPerson,
    automationCoverage: steps === 0 ? 0 : Math.round((device.length / steps) * 1000) / 1000,
    humanSteps: accepted.plan.filter((p) => p.by === 'human').map((p) => p.node),
    presenceSteps: device.filter((p) => (p.unattended ?? opEnvelope(p.op)?.unattended) === false).map((p) => p.node),
  };
  if (withoutPerson.refusal) item.unattendedRefusal = withoutPerson.refusal;
  return item;
}

export interface MatchOptions {
  lang?: string;
  limit?: number;
  offset?: number;
  now?: Date;
}

/** Every recipe of `catalog` the kitchen can cook: unattended ones first, then by coverage, then by id. */
export function matchKitchen(catalog: Catalog, body: unknown, opts: MatchOptions = {}): MatchResult {
  const kitchen = kitchenOf(body);
  const now = opts.now ?? new Date();
  const lang = opts.lang ?? 'en';
  const items: MatchItem[] = [];
  for (const f of catalog.facts) {
    if (isRecalled(catalog.recalls, f.id, f.hash)) continue;
    const doc = catalog.docs.get(f.id);
    if (!doc) continue;
    const m = matchOne(doc, kitchen, now);
    if (m) items.push({ entry: indexEntry(f, lang), ...m });
  }
  items.sort(
    (a, b) =>
      Number(b.unattended) - Number(a.unattended) ||
      b.automationCoverage - a.automationCoverage ||
      (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0),
  );
  const limit = opts.limit ?? 20;
  const offset = opts.offset ?? 0;
  return { total: items.length, offset, limit, items: items.slice(offset, offset + limit) };
}
