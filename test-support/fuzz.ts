/**
 * The hostile-input harness: a real hub (every feature, 127.0.0.1, free ports) and a seeded stream of malformed,
 * oversized and cross-scope calls over every surface (fuzz-surfaces.ts: REST, MCP, SSE, WebSocket, MQTT, pairing,
 * webhooks, raw HTTP), and the MCP endpoint of an index server (fuzz-index.ts). It checks: no 5xx; every HTTP error a
 * problem document (MCP may answer a JSON-RPC error instead); no MCP answer a JSON-RPC -32603 (fuzz-mcp.ts); no request hanging more than 5 s; the scope matrix of runtime/hub/testing/scope-table.ts; no safety message on
 * the bus that the hub did not journal (no spoof got through); heat cut by every stop (REST, MQTT, MCP, dashboard),
 * read from the simulated heaters (fuzz-stops.ts); and RSS after the run against before. `npm run fuzz` runs it in
 * full; fuzz.test.ts runs a short one inside `npm test`.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import mqtt from 'mqtt';
import { expected, ROWS, TOKEN_SCOPES } from '../runtime/hub/testing/scope-table.js';
import { Pick, rng } from './fuzz-cases.js';
import { startFuzzIndex } from './fuzz-index.js';
import { runOps, weightedPicker } from './fuzz-runner.js';
import { SURFACES, type Surface, surfaceOps, type Tally } from './fuzz-surfaces.js';
import { type FuzzTarget, fuzzHub, localTarget } from './fuzz-target.js';

export { SURFACES, type Surface, type Tally } from './fuzz-surfaces.js';

export interface FuzzReport {
  seed: number;
  requests: number;
  bySurface: Record<Surface, Tally>;
  failures: string[];
  stops: { via: string; heatCut: boolean }[];
  spoofsSeen: number;
  rssBeforeMb: number;
  rssAfterMb: number;
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function rssMb(): number {
  gc();
  gc();
  return process.memoryUsage().rss / 1024 / 1024;
}

export async function runFuzz(o: {
  seed: number;
  requests: number;
  concurrency?: number;
  log?: (line: string) => void;
  /**
   * The hub under test; by default a full hub in this process (fuzzHub). bench/memory.bench.ts passes one in a
   * process of its own (fuzz-target.ts), with `rss` read there.
   */
  target?: FuzzTarget;
  /** The hub's RSS after forced GCs, MB; by default this process's. */
  rss?: () => Promise<number>;
  /** Called with the running hub after each round of hostile calls (the last before RSS is measured): memory checks. */
  inspect?: (h: FuzzTarget, round: number) => void | Promise<void>;
  /** Called with the running hub once the hostile calls are over, before it closes (bench/memory.bench.ts waits there). */
  after?: (h: FuzzTarget) => void | Promise<void>;
}): Promise<FuzzReport> {
  const p = new Pick(rng(o.seed));
  const h = o.target ?? localTarget(await fuzzHub());
  const rss = o.rss ?? (async () => rssMb());
  const index = await startFuzzIndex();
  const bySurface = Object.fromEntries(
    SURFACES.map((s) => [s, { sent: 0, ok: 0, refused: 0, server5xx: 0, notProblem: 0, hangs: 0, internal: 0 }]),
  ) as Record<Surface, Tally>;
  const failures: string[] = [];
  const fail = (s: Surface, what: string) => {
    if (failures.length < 50) failures.push(`${s}: ${what}`);
  };
  const kitchen = h.kitchen;
  const scoped = new Map<string | null, string | undefined>();
  for (const s of TOKEN_SCOPES) scoped.set(s, s === null ? undefined : await h.newToken([s], 'human', `fuzz ${s}`));
  const revoked = await h.newToken(['read', 'cook'], 'human', 'fuzz revoked');
  await h.revoke('fuzz revoked');
  const agent = await h.newToken(['read', 'cook', 'notify', 'inventory', 'order:create'], 'agent', 'fuzz agent');
  const admin = await h.newToken(['admin', 'read'], 'human', 'fuzz admin');
  const tokens = [...[...scoped.values()].filter((t): t is string => !!t), revoked, agent, admin, 'hth_not-a-real-token'];
  const valid = new Set<string>();
  for (const t of tokens) if (await h.tokenValid(t)) valid.add(t);

  // A watcher of the bus: every safety message it sees must be one the hub journalled.
  const watcher = await mqtt.connectAsync(h.mqttUrl, { protocolVersion: 5, reconnectPeriod: 0, username: 'watch', password: admin });
  let spoofsSeen = 0;
  watcher.on('message', (_t, payload) => {
    if (payload.length === 0) return;
    try {
      const ce = JSON.parse(payload.toString()) as { id?: string };
      if (!ce.id) spoofsSeen++;
      else
        void h.journalHas(ce.id).then(
          (has) => void (has || spoofsSeen++),
          () => spoofsSeen++,
        );
    } catch {
      spoofsSeen++;
    }
  });
  await watcher.subscribeAsync(`svc/${kitchen}/safety/#`, { qos: 1 });

  const ops = surfaceOps({ p, h, valid: (t) => valid.has(t), tokens, kitchen, indexUrl: index.url, bySurface, fail });
  const pickOp = weightedPicker(p);

  o.log?.('scope matrix');
  await scopeMatrix(h, p, scoped, bySurface.scope, fail, o.requests >= 5000);
  o.log?.('hostile calls');
  const stops: FuzzReport['stops'] = [];
  const run = (n: number) =>
    runOps({ ops, pick: pickOp, bySurface, fail, concurrency: o.concurrency, progress: (done, all) => o.log?.(`${done}/${all}`) }, n);
  // A warm-up as large as one round (at most 5000 calls): the heap and the allocator reach the size this traffic
  // needs before RSS is read, so before/after compares like with like and what remains is what keeps growing.
  await run(Math.min(5000, Math.floor(o.requests / 6)));
  const rssBeforeMb = await rss();
  const { stopChecks } = await import('./fuzz-stops.js');
  const rounds = Math.max(1, Math.floor(o.requests / 5000));
  for (let r = 0; r < rounds; r++) {
    await run(Math.floor(o.requests / rounds));
    o.log?.('stops');
    stops.push(...(await stopChecks(h, admin, kitchen, bySurface.stop, fail)));
    await o.inspect?.(h, r);
  }
  watcher.end(true);
  await o.after?.(h);
  o.log?.('closing');
  const rssAfterMb = await rss();
  await Promise.race([h.close(), new Promise((r) => setTimeout(r, 20_000).unref())]);
  await index.close();
  return {
    seed: o.seed,
    requests: SURFACES.reduce((s, k) => s + bySurface[k].sent, 0),
    bySurface,
    failures,
    stops,
    spoofsSeen,
    rssBeforeMb,
    rssAfterMb,
  };
}

async function scopeMatrix(
  h: FuzzTarget,
  p: Pick,
  scoped: Map<string | null, string | undefined>,
  t: Tally,
  fail: (s: Surface, what: string) => void,
  full: boolean,
): Promise<void> {
  await h.presence(true);
  const pairs = ROWS.flatMap((row, i) => TOKEN_SCOPES.map((scope) => ({ row, i, scope })));
  const chosen = full ? pairs : pairs.filter(() => p.chance(0.25));
  for (const { row, i, scope } of chosen) {
    await h.reset();
    const want = expected(row.need, scope);
    const prepared = row.setup ? await h.setupRow(i) : {};
    const r = await h.call(row.method, prepared.path ?? row.route, {
      token: scoped.get(scope),
      ...((prepared.body ?? row.body) !== undefined ? { body: prepared.body ?? row.body } : {}),
      ...(row.headers ? { headers: row.headers } : {}),
    });
    t.sent++;
    const good = want === 'ok' ? r.status === row.ok : r.status === want;
    if (good) t.ok++;
    else fail('scope', `${row.method} ${row.route} with ${scope ?? 'no token'}: ${r.status}, expected ${want === 'ok' ? row.ok : want}`);
    if (row.cleanup) await h.cleanupRow(i);
  }
  await h.reset();
}
