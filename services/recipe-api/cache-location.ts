/**
 * Where `hearth recipe-api serve` keeps its index cache when no `--index-cache FILE` is given: on by default,
 * because a restart over an unchanged catalog (a service restart, a reboot) is the common case.
 *
 * The folder is the first that is set of: `$CACHE_DIRECTORY` (what systemd's `CacheDirectory=` sets; it may
 * list several folders separated by `:`, the first is used), `$XDG_CACHE_HOME/hearth` (an absolute path only,
 * as the XDG base directory specification says), `~/.cache/hearth`. One file per catalog folder, named by a
 * hash of the folder's real path, so two catalogs never share a file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** The folder the default index caches go in, by the environment (see above). */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const systemd = env.CACHE_DIRECTORY?.split(':').find((p) => p !== '');
  if (systemd !== undefined) return systemd;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'hearth');
  return join(env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir(), '.cache', 'hearth');
}

/** The file name of a catalog folder's cache: a hash of its real path (its resolved path when it has none). */
export function cacheFileName(catalogDir: string): string {
  let real: string;
  try {
    real = realpathSync(catalogDir);
  } catch {
    real = resolve(catalogDir);
  }
  return `recipe-api-${createHash('sha256').update(real).digest('hex').slice(0, 32)}.cache`;
}

/**
 * The default cache file of a catalog folder, its folder created (mode 0700) when missing. Returns the file, or
 * the reason the folder cannot be made (then the start goes on without a cache).
 */
export function defaultCacheFile(catalogDir: string, env: NodeJS.ProcessEnv = process.env): { file: string } | { error: string } {
  let dir: string;
  try {
    dir = defaultCacheDir(env);
  } catch (err) {
    return { error: `no cache folder (${(err as Error).message})` };
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    return { error: `cannot create ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  return { file: join(dir, cacheFileName(catalogDir)) };
}
