#!/usr/bin/env node
/**
 * Compare two V8 heap snapshots (as `npm run bench -- memory --snapshots=DIR` writes them, before.heapsnapshot and
 * after.heapsnapshot): live objects grouped by constructor (objects, closures, natives) or by kind (strings,
 * code, arrays...), with the change in count and in self size between the two, largest growth first.
 *
 *   node bench/heap-diff.mjs BEFORE AFTER [--top=N]
 *   node bench/heap-diff.mjs AFTER --retainers=NAME [--min-size=BYTES]
 *
 * The second form prints the most common chains of retainers (what keeps them alive) of the objects named NAME in
 * one snapshot, e.g. `object:Buffer`, `object:Map`, `string:` (every string; with --min-size only large ones).
 * Large snapshots need room: `node --max-old-space-size=4096 bench/heap-diff.mjs ...`. Not a test.
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const files = args.filter((a) => !a.startsWith('--'));

function load(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  const m = s.snapshot.meta;
  const nf = m.node_fields.length;
  const ef = m.edge_fields.length;
  const f = (k) => m.node_fields.indexOf(k);
  const g = (k) => m.edge_fields.indexOf(k);
  return {
    ...s,
    nf,
    ef,
    count: s.nodes.length / nf,
    ntypes: m.node_types[0],
    etypes: m.edge_types[0],
    iT: f('type'),
    iN: f('name'),
    iE: f('edge_count'),
    iS: f('self_size'),
    eT: g('type'),
    eN: g('name_or_index'),
    eTo: g('to_node'),
  };
}

/** The group a node counts in: its constructor for objects, closures and natives, else its kind. */
function group(h, i) {
  const t = h.ntypes[h.nodes[i * h.nf + h.iT]];
  if (t === 'object' || t === 'closure' || t === 'native') return `${t}:${String(h.strings[h.nodes[i * h.nf + h.iN]]).slice(0, 70)}`;
  return `(${t})`;
}

function byGroup(h) {
  const out = new Map();
  for (let i = 0; i < h.count; i++) {
    const k = group(h, i);
    const e = out.get(k) ?? { count: 0, size: 0 };
    e.count++;
    e.size += h.nodes[i * h.nf + h.iS];
    out.set(k, e);
  }
  return out;
}

function diff(beforeFile, afterFile, top) {
  const a = byGroup(load(beforeFile));
  const b = byGroup(load(afterFile));
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((k) => ({
    k,
    count: (b.get(k)?.count ?? 0) - (a.get(k)?.count ?? 0),
    size: (b.get(k)?.size ?? 0) - (a.get(k)?.size ?? 0),
    after: b.get(k)?.size ?? 0,
  }));
  rows.sort((x, y) => y.size - x.size);
  const mb = (n) => (n / 1048576).toFixed(2).padStart(8);
  console.log(
    `live self size: ${mb([...a.values()].reduce((s, e) => s + e.size, 0))} MB before, ${mb([...b.values()].reduce((s, e) => s + e.size, 0))} MB after`,
  );
  console.log('  Δ MB   Δ count  after MB  group');
  for (const r of rows.slice(0, top)) console.log(`${mb(r.size)}${String(r.count).padStart(9)}${mb(r.after)}  ${r.k}`);
}

function retainers(file, want, minSize, top) {
  const h = load(file);
  const { nodes, edges, nf, ef } = h;
  const first = new Uint32Array(h.count + 1);
  for (let i = 0, e = 0; i < h.count; i++) {
    first[i] = e;
    e += nodes[i * nf + h.iE] * ef;
  }
  first[h.count] = edges.length;
  // Reverse edges: who points at each node.
  const start = new Uint32Array(h.count + 1);
  for (let e = 0; e < edges.length; e += ef) start[edges[e + h.eTo] / nf + 1]++;
  for (let i = 0; i < h.count; i++) start[i + 1] += start[i];
  const from = new Uint32Array(start[h.count]);
  const via = new Uint32Array(start[h.count]);
  const fill = start.slice();
  for (let i = 0; i < h.count; i++)
    for (let e = first[i]; e < first[i + 1]; e += ef) {
      const to = edges[e + h.eTo] / nf;
      from[fill[to]] = i;
      via[fill[to]++] = e;
    }
  const name = (i) => `${h.ntypes[nodes[i * nf + h.iT]]}:${String(h.strings[nodes[i * nf + h.iN]]).slice(0, 60)}`;
  const edgeName = (e) => {
    const t = h.etypes[edges[e + h.eT]];
    return t === 'element' || t === 'hidden' ? '[]' : `.${String(h.strings[edges[e + h.eN]]).slice(0, 40)}`;
  };
  const chains = new Map();
  let matched = 0;
  for (let i = 0; i < h.count; i++) {
    if (!name(i).startsWith(want) || nodes[i * nf + h.iS] < minSize) continue;
    matched++;
    const path = [];
    const seen = new Set([i]);
    for (let cur = i, d = 0; d < 8; d++) {
      let pick = -1;
      for (let r = start[cur]; r < start[cur + 1]; r++)
        if (h.etypes[edges[via[r] + h.eT]] !== 'weak' && !seen.has(from[r])) {
          pick = r;
          break;
        }
      if (pick < 0) break;
      cur = from[pick];
      seen.add(cur);
      path.push(`${name(cur)}${edgeName(via[pick])}`);
    }
    const key = path.join(' <- ');
    chains.set(key, (chains.get(key) ?? 0) + 1);
  }
  console.log(`${matched} nodes named ${want}*; their most common retainer chains:`);
  for (const [k, n] of [...chains].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`${String(n).padStart(7)}  ${k}`);
}

const top = Number(opt('top') ?? 40);
if (opt('retainers') !== undefined && files.length === 1) retainers(files[0], opt('retainers'), Number(opt('min-size') ?? 0), top);
else if (files.length === 2) diff(files[0], files[1], top);
else {
  console.error('usage: node bench/heap-diff.mjs BEFORE AFTER [--top=N] | AFTER --retainers=NAME [--min-size=BYTES]');
  process.exit(2);
}
