/**
 * A seeded synthetic catalog for tests and benchmarks: up to 5,000 recipes with valid hashes, process nodes
 * whose parameters sit inside their operation's envelope band (from the project vocabulary), and titles in six
 * languages including vowelled Arabic and accented Latin. The same seed gives byte-identical files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentHash, sha256Hex } from '../../core/hash.js';
import { mulberry32 } from '../../core/random.js';
import { allOps, type OpEntry } from '../../schemas/vocab.js';
import { withCatalogFields } from './catalog-shape.js';
import { DISHES, type Dish, LANGS, STYLES, titleOf } from './words.js';

export const MAX_COUNT = 5000;
const SVC_VERSION = '0.2.0';

type Json = Record<string, unknown>;

/** Test data from a seed text: mulberry32 seeded from the SHA-256 of the text. */
export function prng(seed: string): () => number {
  return mulberry32(Number.parseInt(sha256Hex(`hearth-catalog:${seed}`).slice(0, 8), 16));
}

class Rand {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)] as T;
  }
}

const PREP_OPS = ['cw.op.wash', 'cw.op.cut', 'cw.op.mix', 'cw.op.season', 'cw.op.crush', 'cw.op.whisk'];
const FINISH_OPS = ['cw.op.garnish', 'cw.op.serve', 'cw.op.rest'];
const EQUIPMENT = [
  { ref: 'pot', class: 'cw.eq.vessel.pot.sauce' },
  { ref: 'pan', class: 'cw.eq.vessel.pan.frying' },
  { ref: 'hob', class: 'cw.eq.heat.hob' },
  { ref: 'oven', class: 'cw.eq.heat.oven' },
  { ref: 'knife', class: 'cw.eq.tool.knife.chef' },
  { ref: 'bowl', class: 'cw.eq.tool.bowl.mixing' },
];

interface Vocab {
  byId: Map<string, OpEntry>;
  /** Executable ops with a temperature band: the cooking steps. */
  heat: OpEntry[];
}

function loadVocab(): Vocab {
  const ops = allOps();
  const byId = new Map(ops.map((o) => [o.id, o]));
  const heat = ops.filter((o) => o.executable !== false && o.envelope?.tempC !== undefined && o.envelope.medium !== 'ambient');
  if (heat.length === 0) throw new Error('the operation vocabulary has no ops with a temperature band');
  return { byId, heat };
}

function minutes(m: number): string {
  const h = Math.floor(m / 60);
  const rest = m % 60;
  return h > 0 ? `PT${h}H${rest > 0 ? `${rest}M` : ''}` : `PT${m}M`;
}

function label(op: OpEntry | undefined, id: string): string {
  const l = op?.label as unknown;
  if (typeof l === 'string') return l;
  if (typeof l === 'object' && l !== null && typeof (l as Json).en === 'string') return (l as Json).en as string;
  return id.replace(/^cw\.op\./, '').replace(/_/g, ' ');
}

/** Params of a step inside its envelope: integer degrees inside the band, pressure likewise. */
function paramsFor(op: OpEntry, r: Rand): Json {
  const env = op.envelope;
  const params: Json = {};
  if (env?.tempC) params.tempC = r.int(Math.ceil(env.tempC.min), Math.floor(env.tempC.max));
  if (env?.pressureKPa) params.pressureKPa = r.int(Math.ceil(env.pressureKPa.min), Math.floor(env.pressureKPa.max));
  return params;
}

function levelOf(r: Rand): 'V0' | 'V1' | 'V2' | 'V3' {
  const x = r.next();
  return x < 0.1 ? 'V0' : x < 0.7 ? 'V1' : x < 0.95 ? 'V2' : 'V3';
}

interface Built {
  nodes: Json[];
  steps: Record<string, string>;
  totalMin: number;
  activeMin: number;
  presence: boolean;
}

function legacyProcess(r: Rand): Built {
  const count = r.int(3, 6);
  const nodes: Json[] = [];
  const steps: Record<string, string> = {};
  for (let i = 1; i <= count; i++) {
    nodes.push({
      id: `n${i}`,
      op: 'cw.op.legacy_step',
      params: { sourceStep: i, phase: i === 1 ? 'prep' : 'cook' },
      attention: 'continuous',
    });
    steps[`n${i}`] = `Step ${i} as written in the source.`;
  }
  const total = r.int(15, 90);
  return { nodes, steps, totalMin: total, activeMin: total, presence: true };
}

function structuredProcess(r: Rand, v: Vocab, dish: Dish): Built {
  const nodes: Json[] = [];
  const steps: Record<string, string> = {};
  let prev: string[] = dish.ingredients.map((_, i) => `i${i + 1}`);
  let total = 0;
  let active = 0;
  let presence = false;
  const add = (opId: string, params: Json, until?: Json) => {
    const id = `n${nodes.length + 1}`;
    const op = v.byId.get(opId);
    const node: Json = { id, op: opId, inputs: prev, output: `s${nodes.length + 1}` };
    if (Object.keys(params).length > 0) node.params = params;
    if (until) node.until = until;
    nodes.push(node);
    prev = [`s${nodes.length}`];
    if (op?.envelope?.unattended === false) presence = true;
    const t = typeof params.tempC === 'number' ? ` at ${params.tempC} °C` : '';
    steps[id] = `${label(op, opId)}${t}.`;
  };
  for (let i = r.int(1, 3); i > 0; i--) {
    const opId = r.pick(PREP_OPS.filter((o) => v.byId.has(o)));
    if (opId === undefined) break;
    add(opId, {});
    const m = r.int(2, 8);
    total += m;
    active += m;
  }
  for (let i = r.int(1, 4); i > 0; i--) {
    const op = r.pick(v.heat);
    const lo = r.int(3, 25);
    const hi = lo + r.int(2, 20);
    add(op.id, paramsFor(op, r), { minTime: minutes(lo), maxTime: minutes(hi) });
    total += hi;
    if (op.envelope?.unattended === false) active += hi;
  }
  const finish = FINISH_OPS.filter((o) => v.byId.has(o));
  if (finish.length > 0) {
    add(r.pick(finish), {});
    total += 2;
    active += 2;
  }
  return { nodes, steps, totalMin: total, activeMin: active, presence };
}

function recipe(index: number, r: Rand, v: Vocab): Json {
  const dish = r.pick(DISHES);
  const style = r.next() < 0.8 ? r.pick(STYLES) : undefined;
  const titles = titleOf(dish, style);
  const level = levelOf(r);
  const built = level === 'V0' ? legacyProcess(r) : structuredProcess(r, v, dish);
  const allergens = [...dish.allergens].sort();
  const id = `syn-${String(index + 1).padStart(5, '0')}`;
  const text: Json = {};
  for (const lang of LANGS) text[lang] = lang === 'en' ? { title: titles.en, steps: built.steps } : { title: titles[lang] };
  const doc: Json = {
    svc: SVC_VERSION,
    id,
    revision: r.int(1, 4),
    updated: `2026-${String(r.int(1, 10)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')}`,
    verification:
      level === 'V0' ? { level, notes: 'Synthetic: described only, not machine-verified.' } : { level, notes: 'Synthetic test recipe.' },
    dish: { names: titles, cuisine: [dish.cuisine], course: dish.course, tags: ['synthetic', dish.course] },
    yield: { servings: r.int(1, 8) },
    ingredients: dish.ingredients.map((ing, i) => ({
      ref: `i${i + 1}`,
      ingredientId: `cw.ing.${ing}`,
      qty: { value: r.int(1, 50) * 10, unit: 'g' },
      display: { en: ing.replace(/_/g, ' ') },
    })),
    equipment: EQUIPMENT,
    process: { nodes: built.nodes, totalTime: minutes(built.totalMin), activeTime: minutes(built.activeMin) },
    safety: {
      hazards: [],
      allergens: { eu14: allergens },
      supervision: { default: built.presence ? 'presence_required' : 'unattended_ok' },
      abort: { steps: ['heat_off', 'alert_user'] },
    },
    text,
    license: 'CC0-1.0',
  };
  return { ...doc, hash: documentHash(doc) };
}

export interface GeneratedFile {
  name: string;
  text: string;
}

/** `plain`: the recipe fields only (the default); `catalog`: plus the catalog fields (nutrition, cost, diet claims, source...). */
export type Shape = 'plain' | 'catalog';

/** Generate `count` recipes from `seed`. Pure: no clock, no randomness beyond the seed. */
export function generateCatalog(count: number, seed: string, shape: Shape = 'plain'): GeneratedFile[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw new RangeError(`count must be an integer from 1 to ${MAX_COUNT}`);
  const r = new Rand(prng(seed));
  const vocab = loadVocab();
  const out: GeneratedFile[] = [];
  for (let i = 0; i < count; i++) {
    let doc = recipe(i, r, vocab);
    if (shape === 'catalog') {
      const full = withCatalogFields(doc, i, r);
      doc = { ...full, hash: documentHash(full) };
    }
    out.push({ name: `${doc.id as string}.svc.json`, text: `${JSON.stringify(doc, null, 2)}\n` });
  }
  return out;
}

/** Generate and write into `outDir` (created if needed); returns the file names. */
export function writeCatalog(outDir: string, count: number, seed: string, shape: Shape = 'plain'): string[] {
  const files = generateCatalog(count, seed, shape);
  mkdirSync(outDir, { recursive: true });
  for (const f of files) writeFileSync(join(outDir, f.name), f.text);
  return files.map((f) => f.name);
}
