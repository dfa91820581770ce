/**
 * Spawning a `hearth` server command as a user would (node bin/hearth.mjs ...) and timing it to its first
 * 200 on a given path; CPU time and resident memory of the child read from /proc. For benchmarks only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TokenStore, tokensMigration } from '../platform/http/auth.js';
import { MigrationRegistry } from '../platform/sqlite/migrations.js';
import { openDatabase } from '../runtime/store/db.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Which CLI bin/hearth.mjs runs here: the compiled one (what users run) or the sources through tsx. */
export function cliKind(): string {
  return existsSync(join(root, 'dist/runtime/cli/run.js'))
    ? 'compiled dist/ when fresh'
    : 'source via tsx (npm run build for the real figure)';
}

export interface Spawned {
  /** Spawn to the first 200 on the probe path, ms. */
  ms: number;
  /** What it has printed so far, stdout then stderr. */
  output: () => string;
  pid: number;
  url: string;
  kill: () => Promise<void>;
}

/**
 * Spawn `hearth ARGS` (a server that prints its URL, `... at http://host:port`), then ask `probe` until it
 * answers 200. Rejects after 60 s, or when the process exits first.
 */
/** SIGTERM to a spawned process; resolves once it has exited (at once if it already had). */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((r) => {
    if (child.exitCode !== null) return r();
    child.once('exit', () => r());
    child.kill('SIGTERM');
  });
}

export function spawnServer(args: string[], probe: string, env: NodeJS.ProcessEnv = process.env): Promise<Spawned> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin/hearth.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const kill = () => stopChild(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer within 60 s: ${out}${err}`));
    }, 60_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`hearth ${args.join(' ')} exited ${code}: ${out}${err}`));
    };
    child.once('exit', onExit);
    child.stdout.on('data', async (d: Buffer) => {
      const had = /(?:at|ready) (http:\/\/\S+)/.test(out);
      out += d.toString();
      const m = /(?:at|ready) (http:\/\/\S+)/.exec(out);
      if (!m || had) return;
      const url = m[1] as string;
      for (;;) {
        const res = await fetch(`${url}${probe}`).catch(() => undefined);
        await res?.arrayBuffer();
        if (res?.status === 200) break;
        if (child.exitCode !== null) return;
        await new Promise((r) => setTimeout(r, 5));
      }
      const ms = performance.now() - t0;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ ms, pid: child.pid as number, url, kill, output: () => `${out}${err}` });
    });
  });
}

/** CPU time (user + system) a process has used so far, in ms (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Resident, proportional (PSS) and anonymous memory of a process from /proc/PID/smaps_rollup, MB. */
export function smapsMb(pid: number): { rss: number; pss: number; anon: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024;
  return { rss: kb('Rss'), pss: kb('Pss'), anon: kb('Anonymous') };
}

/** A fresh data directory for a spawned `hearth start`, holding one bearer token with read and cook. */
export function benchDataDir(): { dir: string; token: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-'));
  const db = openDatabase(dir);
  new MigrationRegistry().add(tokensMigration).migrate(db);
  const token = new TokenStore(db).create({ scopes: ['read', 'cook'] }).token;
  db.close();
  return { dir, token };
}

/** With a person present on the simulated rig, start cooking koshari on the hub at `url`; the execution's id. */
export async function startKoshari(url: string, auth: Record<string, string>, key: string): Promise<string> {
  await fetch(`${url}/sim/v1/presence`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"present":true}' });
  const recipe = JSON.parse(readFileSync(join(root, 'examples/recipes/koshari.svc.json'), 'utf8')) as { id: string; hash: string };
  const started = await fetch(`${url}/v1/executions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: 'bench-1',
      recipe: recipe.id,
      recipeHash: recipe.hash,
      requestedBy: 'bench',
      idempotencyKey: key,
    }),
  });
  if (started.status >= 300) throw new Error(`start of koshari answered ${started.status}: ${await started.text()}`);
  return ((await started.json()) as { id: string }).id;
}
