/**
 * Test helpers for the hub: the whole `hearth start` app (core + hub) on the simulated rig with a manual clock,
 * listening on 127.0.0.1 port 0, plus a small HTTP client that sends an Idempotency-Key with every POST.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { documentHash } from '../../core/hash.js';
import { ManualClock } from '../../drivers/clock.js';
import type { PrincipalKind } from '../../platform/http/auth.js';
import { App } from '../app/app.js';
import { defaultConfig, type HearthConfig } from '../config/config.js';
import { packageRoot } from '../config/paths.js';
import { type Hub, hubFeature } from './feature.js';
import { SCOPES, type Session } from './types.js';

export interface TestHub {
  app: App;
  url: string;
  clock: ManualClock;
  hub: Hub;
  token(scopes: readonly string[], kind?: PrincipalKind, name?: string): string;
  call(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; key?: string | false; headers?: Record<string, string> },
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
  /** Set the sensed presence of a person on the simulated rig (as the sim surface does) and let it settle. */
  presence(present: boolean): Promise<void>;
  /** Move simulated time in steps until `done()` holds (or `maxMs` passed). */
  runUntil(done: () => boolean, maxMs?: number, stepMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export const ALL_SCOPES: readonly string[] = SCOPES;

/**
 * A short recipe for the simulated fryer, cut from the project's koshari example: heat the frying oil to
 * 175 °C (oil thermometer), then deep-fry the onions. Both steps need a person present.
 */
export const FRY_RECIPE = 'test-crispy-onions';

const recipeDirs: string[] = [];

/**
 * A folder holding the example recipes plus FRY_RECIPE (with its own hash). It is removed when the test process
 * exits: a hub started on it may read it until its last test.
 */
export function testRecipesDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-hub-recipes-'));
  if (recipeDirs.length === 0) {
    process.once('exit', () => {
      for (const d of recipeDirs) rmSync(d, { recursive: true, force: true });
    });
  }
  recipeDirs.push(dir);
  const examples = join(packageRoot(), 'examples/recipes');
  for (const name of ['koshari.svc.json', 'shakshuka.svc.json']) writeFileSync(join(dir, name), readFileSync(join(examples, name)));
  const koshari = JSON.parse(readFileSync(join(examples, 'koshari.svc.json'), 'utf8')) as Record<string, unknown> & {
    process: { nodes: { id: string }[] };
  };
  const { hash: _hash, ...rest } = koshari;
  const doc: Record<string, unknown> = {
    ...rest,
    id: FRY_RECIPE,
    dish: { names: { en: 'Crispy fried onions', ar: 'بصل مقرمش' }, cuisine: ['EG'], course: 'side', tags: ['onions', 'deep-fry'] },
    process: { nodes: koshari.process.nodes.filter((n) => n.id === 'n14'), edges: [] },
  };
  doc.hash = documentHash(doc);
  writeFileSync(join(dir, `${FRY_RECIPE}.svc.json`), JSON.stringify(doc, null, 2));
  return dir;
}

export async function startHub(
  opts: {
    dataDir?: string;
    recipes?: string;
    market?: string;
    relief?: boolean;
    beforeStart?: (app: App) => void;
    /** `webhooks.allow` (default `['127.0.0.1']`, for the test receivers). */
    webhooksAllow?: string[];
  } = {},
): Promise<TestHub> {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 16, 0, 0));
  const config: HearthConfig = {
    ...defaultConfig(),
    host: '127.0.0.1',
    httpPort: 0,
    logLevel: 'silent',
    simSpeed: 'manual',
    recipes: opts.recipes ?? testRecipesDir(),
    // Test receivers (webhooks, A2A pushes) listen on 127.0.0.1: the allow-list opens loopback, refused by default.
    webhooks: { allow: opts.webhooksAllow ?? ['127.0.0.1'] },
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.market ? { market: opts.market } : {}),
    ...(opts.relief ? { relief: { coordinator: true } } : {}),
  };
  const app = await App.create(config, {
    clock,
    logger: pino({ level: 'silent' }),
    supervisor: { watchdogStallMs: 2000 },
    ...(opts.dataDir ? {} : { database: ':memory:' as const }),
  });
  let hub: Hub | undefined;
  app.use(hubFeature({ onReady: (h) => (hub = h) }));
  opts.beforeStart?.(app);
  const url = await app.start();
  if (!hub) throw new Error('the hub feature did not start');
  const call = httpCall(url);
  return {
    app,
    url,
    clock,
    hub,
    token: (scopes, kind = 'human', name) =>
      app.ctx.tokens.create({ scopes: [...scopes], kind, name: name ?? `${kind}-${scopes.join('+') || 'none'}` }).token,
    call,
    async presence(present) {
      const sim = app.ctx.rig.sim;
      if (!sim) throw new Error('not the simulated rig');
      sim.setPresence(present);
      await clock.advanceAsync(1000);
    },
    async runUntil(done, maxMs = 6 * 3600_000, stepMs = 60_000) {
      for (let t = 0; t < maxMs && !done(); t += stepMs) await clock.advanceAsync(stepMs);
      return done();
    },
    close: () => app.stop(),
  };
}

/** The hub's HTTP surface as TestHub's `call`: JSON in and out, a token, a fresh idempotency key on every POST. */
export function httpCall(url: string): TestHub['call'] {
  return async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST' && o.key !== false) headers['idempotency-key'] = o.key ?? `test-${randomUUID()}`;
    const res = await fetch(`${url}${path}`, { method, headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      body = { text };
    }
    return { status: res.status, body, headers: res.headers };
  };
}

/**
 * A cook of FRY_RECIPE under way: the person present, the session created, confirmed and started with `token`
 * (cook scope), then 30 s of the clock, so the fryer heats. Returns the session as created.
 */
export async function startFryCook(h: TestHub, token: string): Promise<Session> {
  await h.presence(true);
  const s = (
    await h.call('POST', '/svc/v1/sessions', {
      token,
      body: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' },
    })
  ).body as unknown as Session;
  await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, { token, body: { acknowledgedRules: s.confirmation.requiredRules } });
  await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token });
  await h.clock.advanceAsync(30_000);
  return s;
}
