/**
 * The hub as the hostile-input harness (fuzz.ts) sees it: its addresses, HTTP calls, and the few things it reads or
 * sets beside the wire (tokens, presence, the supervisor's latch, the simulated fryer's power, the journal, the scope
 * matrix's fixtures). `localTarget` is a hub in the harness's own process (`npm run fuzz`, fuzz.test.ts);
 * `serveTarget` / `remoteTarget` put the hub in a process of its own and reach it over Node's IPC channel, so that
 * bench/memory.bench.ts measures the hub's memory without the client's.
 */
import type { ChildProcess } from 'node:child_process';
import type { TestHub } from '../runtime/hub/test-helpers.js';
import { httpCall } from '../runtime/hub/test-helpers.js';
import { MARKET_DIR, ROWS } from '../runtime/hub/testing/scope-table.js';
import { type FullHub, startFullHub } from './hub-app.js';

export interface FuzzTarget {
  url: string;
  mqttUrl: string;
  kitchen: string;
  call: TestHub['call'];
  newToken(scopes: readonly string[], kind: 'human' | 'agent', name: string): Promise<string>;
  revoke(name: string): Promise<void>;
  tokenValid(token: string): Promise<boolean>;
  presence(present: boolean): Promise<void>;
  /** Clear the supervisor's latch. */
  reset(): Promise<void>;
  /** Heat the simulated fryer (through the supervisor, else its heater directly); true once it carries power. */
  heat(): Promise<boolean>;
  /** Whether any simulated heater carries power (read from the rig, not the supervisor's record). */
  heatOn(): Promise<boolean>;
  /** Whether the hub's journal holds this CloudEvent id. */
  journalHas(id: string): Promise<boolean>;
  /** The scope matrix's row `i` (ROWS): its setup (path and body it prepared) and its cleanup. */
  setupRow(i: number): Promise<{ path?: string; body?: unknown }>;
  cleanupRow(i: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The hub the harness starts, as the scope matrix's hub: the reference's market (quotes to order and approve) and
 * relief coordination. Its database is in memory unless `dataDir` is given.
 */
export const fuzzHub = (dataDir?: string) =>
  startFullHub({ ...(dataDir ? { dataDir } : {}), config: { market: MARKET_DIR, relief: { coordinator: true } } });

const heatOnNow = (h: FullHub) => Object.values(h.app.ctx.rig.sim?.snapshot().heaters ?? {}).some((p) => p > 0);

/** The harness's target for a hub in this process. */
export function localTarget(h: FullHub): FuzzTarget {
  return {
    url: h.url,
    mqttUrl: h.mqttUrl,
    kitchen: h.events.hub?.kitchenId ?? 'kitchen',
    call: h.call,
    newToken: async (scopes, kind, name) => h.newToken(scopes, kind, name).token,
    revoke: async (name) => void h.app.ctx.tokens.revoke(name),
    tokenValid: async (token) => !!h.app.ctx.tokens.verify(token),
    presence: (present) => h.presence(present),
    reset: async () => void h.app.ctx.supervisor.reset('fuzz'),
    async heat() {
      h.app.ctx.supervisor.reset('fuzz');
      const grant = h.app.ctx.supervisor.requestHeat({
        heater: 'fryer',
        power: 1,
        op: 'cw.deep_fry',
        medium: 'oil',
        targetC: 170,
        owner: 'fuzz',
      });
      if (!grant.granted) await h.app.ctx.rig.heaters.get('fryer')?.set(1);
      for (let i = 0; i < 100 && !heatOnNow(h); i++) await new Promise((r) => setTimeout(r, 10));
      return heatOnNow(h);
    },
    heatOn: async () => heatOnNow(h),
    journalHas: async (id) => h.events.journal?.positionOf(id) !== undefined,
    async setupRow(i) {
      const row = ROWS[i];
      if (!row) throw new Error(`no scope-matrix row ${i}`);
      return row.setup ? await row.setup(h) : {};
    },
    cleanupRow: async (i) => void ROWS[i]?.cleanup?.(h),
    close: () => h.close(),
  };
}

type Method = Exclude<keyof FuzzTarget, 'url' | 'mqttUrl' | 'kitchen' | 'call'>;
interface Ask {
  fuzz: number;
  method: Method;
  args: unknown[];
}
interface Answer {
  fuzz: number;
  value?: unknown;
  error?: string;
}

/**
 * In the hub's process (started with an IPC channel): answer the harness's asks with `localTarget(h)`, and send
 * `{ ready: { url, mqttUrl, kitchen } }` once. Messages without a `fuzz` number are left to `other`.
 */
export function serveTarget(h: FullHub, other: (msg: unknown) => void = () => {}): void {
  const t = localTarget(h);
  const send = (m: unknown) => process.send?.(m);
  process.on('message', (msg: Ask) => {
    if (typeof msg?.fuzz !== 'number') return other(msg);
    const fn = t[msg.method] as (...a: unknown[]) => Promise<unknown>;
    fn(...msg.args).then(
      (value) => send({ fuzz: msg.fuzz, value } satisfies Answer),
      (err: Error) => send({ fuzz: msg.fuzz, error: err.message } satisfies Answer),
    );
  });
  send({ ready: { url: t.url, mqttUrl: t.mqttUrl, kitchen: t.kitchen } });
}

/** The harness's target for a hub in the child `p` that runs `serveTarget`; resolves once the hub is ready. */
export async function remoteTarget(p: ChildProcess): Promise<FuzzTarget> {
  let n = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const ready = new Promise<{ url: string; mqttUrl: string; kitchen: string }>((resolve, reject) => {
    p.once('exit', (code) => reject(new Error(`the hub exited (${code}) before it was ready`)));
    p.on('message', (m: Answer & { ready?: { url: string; mqttUrl: string; kitchen: string } }) => {
      if (m.ready) return resolve(m.ready);
      const w = waiting.get(m.fuzz);
      if (!w) return;
      waiting.delete(m.fuzz);
      if (m.error !== undefined) w.reject(new Error(m.error));
      else w.resolve(m.value);
    });
  });
  p.once('exit', () => {
    for (const w of waiting.values()) w.reject(new Error('the hub exited'));
    waiting.clear();
  });
  const ask =
    <T>(method: Method) =>
    (...args: unknown[]) =>
      new Promise<T>((resolve, reject) => {
        const id = ++n;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        p.send({ fuzz: id, method, args } satisfies Ask);
      });
  const { url, mqttUrl, kitchen } = await ready;
  const call = httpCall(url);
  return {
    url,
    mqttUrl,
    kitchen,
    call,
    newToken: ask('newToken'),
    revoke: ask('revoke'),
    tokenValid: ask('tokenValid'),
    presence: ask('presence'),
    reset: ask('reset'),
    heat: ask('heat'),
    heatOn: ask('heatOn'),
    journalHas: ask('journalHas'),
    setupRow: ask('setupRow'),
    cleanupRow: ask('cleanupRow'),
    close: ask('close'),
  };
}
