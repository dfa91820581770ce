/**
 * Helpers for tests of the device process: an in-process App on the simulated rig with a manual clock and a
 * silent logger, plus request builders. Tests only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ManualClock } from '../../drivers/clock.js';
import { type HearthConfig, resolveConfig } from '../config/config.js';
import { App } from './app.js';

export interface TestApp {
  app: App;
  clock: ManualClock;
  dataDir: string;
  /** A token with read and cook. */
  token: string;
  auth: { authorization: string };
  close(): Promise<void>;
}

export async function startTestApp(
  opts: { dataDir?: string; config?: Partial<HearthConfig>; listen?: boolean; keepDir?: boolean } = {},
): Promise<TestApp> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-test-'));
  const config = { ...resolveConfig({ dataDir, httpPort: '0' }), logLevel: 'silent' as const, ...opts.config };
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12, 0, 0));
  // The watchdog stays on; its real-time stall threshold is raised from 200 ms to 2 s because tests share a
  // loaded machine and drive simulated time by hand, where a scheduler hiccup is not a stalled control loop.
  const app = await App.create(config, { clock, logger: pino({ level: 'silent' }), supervisor: { watchdogStallMs: 2000 } });
  await app.start({ listen: opts.listen ?? false });
  const token = app.ctx.tokens.create({ name: 'test', scopes: ['read', 'cook'] }).token;
  return {
    app,
    clock,
    dataDir,
    token,
    auth: { authorization: `Bearer ${token}` },
    async close() {
      await app.stop();
      if (!opts.keepDir && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let keyCounter = 0;

/** A fresh Idempotency-Key. */
export function newKey(): string {
  keyCounter++;
  return `test-key-${process.pid}-${keyCounter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** An ExecuteRequest for a recipe of the app's catalog. */
export function executeRequest(app: App, recipeId: string, key: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const recipe = app.ctx.recipes.get(recipeId);
  if (!recipe) throw new Error(`no recipe ${recipeId} in the test catalog`);
  return {
    core: '0.2.0',
    kind: 'ExecuteRequest',
    id: `req-${key}`,
    recipe: recipeId,
    recipeHash: recipe.hash,
    requestedBy: 'household:test',
    idempotencyKey: key,
    ...extra,
  };
}

export const KOSHARI = 'example-koshari';
