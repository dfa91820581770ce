/**
 * Tokens a hub issued (by pairing, `hearth pair approve`, or `hearth token create`) opening the recipe API's
 * /mcp route. The recipe API opens the hub's store read-only and asks it about each presented token, so a
 * token the hub revokes stops working at once; only hashes of tokens are ever read.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { TokenStore } from '../../platform/http/auth.js';

/**
 * better-sqlite3 (a native addon, ~7 ms to load) only when a hub's store is opened: most recipe APIs run without
 * `--hub-data`, and every start loaded it.
 */
const sqlite = (): typeof BetterSqlite3 => createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

/** The store file of a hub's data directory (runtime/store/db.ts names it the same). */
const STORE_FILE = 'hearth.db';

export class HubTokensError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HubTokensError';
  }
}

export interface HubTokens {
  /** Whether `token` is a valid, unrevoked token of the hub. */
  verify(token: string): boolean;
  close(): void;
}

/** Open the token store of the hub whose data directory (or store file) is `path`. */
export function openHubTokens(path: string): HubTokens {
  let file = path;
  try {
    if (statSync(path).isDirectory()) file = join(path, STORE_FILE);
  } catch (err) {
    throw new HubTokensError(
      `${path}: cannot read the hub's data directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  if (!existsSync(file))
    throw new HubTokensError(`${file}: no hub store here; point --hub-data at the data directory of a hub that has been started`);
  let db: BetterSqlite3.Database;
  try {
    db = new (sqlite())(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.prepare('SELECT 1 FROM tokens LIMIT 1').all();
  } catch (err) {
    throw new HubTokensError(`${file}: not a hub store with tokens (${(err as { code?: string }).code ?? (err as Error).message})`);
  }
  const store = new TokenStore(db);
  return {
    verify: (token) => {
      try {
        return store.verify(token) !== null;
      } catch {
        // A store that cannot answer (locked for longer than the busy timeout, moved away) opens nothing.
        return false;
      }
    },
    close: () => db.close(),
  };
}
