/**
 * Loading and configuring the embedded Node-RED 4 (CommonJS, loaded on demand so `hearth start` without `--flows`
 * loads none of it): where its files and Hearth's nodes are, and the settings that put its editor and admin API
 * behind Hearth's tokens.
 */

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { problem } from '../../core/problems.js';
import type { Principal } from '../../platform/http/auth.js';
import { controlActive } from '../../safety/controls.js';

const require = createRequire(import.meta.url);

/** The part of Node-RED's embedding API Hearth uses. */
export interface NodeRed {
  init(server: unknown, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  httpAdmin: (req: unknown, res: unknown, next?: unknown) => void;
  httpNode: (req: unknown, res: unknown, next?: unknown) => void;
}

export type Express = () => ExpressApp;
export interface ExpressApp {
  (req: unknown, res: unknown): void;
  use(path: string, handler: unknown): void;
  disable(setting: string): void;
}

export function loadNodeRed(): { RED: NodeRed; express: Express } {
  const redPath = require.resolve('node-red');
  const RED = require('node-red') as NodeRed;
  const express = require(require.resolve('express', { paths: [dirname(redPath)] })) as Express;
  return { RED, express };
}

/** The repository's flows/ package (Hearth's Node-RED nodes), from source or from dist/. */
export function flowsPackageDir(): string {
  for (const rel of ['../../flows/', '../../../flows/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'node-red-contrib-hearth') return dir;
    } catch {
      // try the next candidate
    }
  }
  throw new Error('the flows/ package (Hearth nodes for Node-RED) is missing from this installation');
}

/** Node-RED's credential secret for this data directory: made once, kept beside the flows (mode 0600). */
export function credentialSecret(userDir: string): string {
  const file = join(userDir, '.hearth-credential-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

export interface SettingsInput {
  root: string;
  userDir: string;
  nodesDir: string;
  /** A Hearth bearer token → principal (null when unknown or revoked). */
  verify(token: string): Principal | null;
  /** Public base URL (problem document types). */
  baseUrl(): string;
  log(level: 'error' | 'warn' | 'info', msg: string): void;
}

const isAdmin = (p: Principal | null): p is Principal => p?.scopes.includes('admin') === true;

/**
 * Node-RED's core nodes that reach the operating system around Hearth (control `flows-os-nodes-excluded`):
 * `exec` runs programs (`gpioset`, `echo 1 > /sys/class/gpio/...`), `file`/`file in` write and read any file
 * the process may (sysfs GPIO, the rig config, the store), `watch` watches the file system, and the `tcp` and
 * `udp` nodes speak raw sockets (a GPIO daemon such as pigpiod listens on TCP, an appliance on a serial-over-
 * network bridge). None of them is loaded: a flow that uses one is not started (its types are missing).
 * What stays is in docs/maker.md.
 */
export const EXCLUDED_NODE_FILES = ['90-exec.js', '10-file.js', '23-watch.js', '31-tcpin.js', '32-udp.js'];
/** The node types those files register (for the test and the docs). */
export const EXCLUDED_NODE_TYPES = ['exec', 'file', 'file in', 'watch', 'tcp in', 'tcp out', 'tcp request', 'udp in', 'udp out'];

/** Node-RED settings: editor and admin API at `root`, HTTP-in endpoints at `root/api`, both for admin tokens only. */
export function nodeRedSettings(i: SettingsInput): Record<string, unknown> {
  mkdirSync(i.userDir, { recursive: true });
  // Who logged in to the editor with which Hearth token: a revoked token ends the editor session too.
  const logins = new Map<string, string>();
  const user = (p: Principal) => ({ username: p.name, permissions: '*' });
  const levels: Record<number, 'error' | 'warn' | 'info'> = { 10: 'error', 20: 'error', 30: 'warn', 40: 'info' };
  return {
    httpAdminRoot: i.root,
    httpNodeRoot: `${i.root}/api`,
    userDir: i.userDir,
    flowFile: 'flows.json',
    credentialSecret: credentialSecret(i.userDir),
    nodesDir: [i.nodesDir],
    adminAuth: {
      type: 'credentials',
      // The editor's login: any user name, and a Hearth token with the admin scope as the password.
      async authenticate(username: string, password: string) {
        const p = i.verify(password);
        if (!isAdmin(p)) return null;
        // Node-RED names its session after the user name typed in; later look-ups use that name.
        logins.set(username, password);
        return { username, permissions: '*' };
      },
      async users(username: string) {
        const token = logins.get(username);
        const p = token ? i.verify(token) : null;
        if (!isAdmin(p)) {
          logins.delete(username);
          return null;
        }
        return { username, permissions: '*' };
      },
      // The admin API straight with `Authorization: Bearer <hearth admin token>`.
      async tokens(token: string) {
        const p = i.verify(token);
        return isAdmin(p) ? user(p) : null;
      },
    },
    httpNodeMiddleware(
      req: { headers: Record<string, string | undefined> },
      res: { statusCode: number; setHeader(k: string, v: string): void; end(b: string): void },
      next: () => void,
    ) {
      const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      const p = m?.[1] ? i.verify(m[1]) : null;
      if (isAdmin(p)) return next();
      res.statusCode = p ? 403 : 401;
      res.setHeader('content-type', 'application/problem+json');
      res.setHeader('www-authenticate', 'Bearer realm="hearth"');
      const detail = 'flow HTTP endpoints need a Hearth token with the admin scope';
      res.end(JSON.stringify(problem(i.baseUrl(), p ? 'forbidden' : 'unauthorized', detail)));
    },
    logging: {
      hearth: {
        level: 'warn',
        metrics: false,
        audit: false,
        handler: () => (m: { level: number; msg: unknown }) => {
          const text = String(m.msg);
          // First start: no credentials file yet. Normal, not a warning.
          const level = /Encrypted credentials not found/.test(text) ? 'info' : (levels[m.level] ?? 'info');
          i.log(level, `node-red: ${text}`);
        },
      },
    },
    editorTheme: { tours: false, header: { title: 'Hearth flows' }, page: { title: 'Hearth flows' } },
    diagnostics: { enabled: false, ui: false },
    runtimeState: { enabled: false },
    telemetry: { enabled: false, updateNotification: false },
    functionExternalModules: false,
    // Function nodes see no shared globals from Hearth (and cannot load modules: functionExternalModules).
    functionGlobalContext: {},
    ...(controlActive('flows-os-nodes-excluded') ? { nodesExcludes: EXCLUDED_NODE_FILES } : {}),
    externalModules: { autoInstall: false, palette: { allowInstall: false }, modules: { allowInstall: false } },
  };
}
