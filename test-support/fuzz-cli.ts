/**
 * `npm run fuzz [-- --seed N --requests N --concurrency N]`: the hostile-input harness (fuzz.ts) in full against a
 * real hub on 127.0.0.1 (and an index server's MCP endpoint); prints the counts per surface (-32603: JSON-RPC internal
 * errors the MCP endpoints answered), the stops, the RSS before and after, and every failure; exits 1 when anything
 * failed, a -32603 answer included.
 */
import { runFuzz, SURFACES } from './fuzz.js';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) {
    process.stderr.write(`fuzz: --${name} needs a whole number\n`);
    process.exit(2);
  }
  return v;
}

const seed = arg('seed', 1);
const requests = arg('requests', 30_000);
const started = Date.now();
const r = await runFuzz({ seed, requests, concurrency: arg('concurrency', 4), log: (l) => process.stderr.write(`fuzz: ${l}\n`) });
const lines = [`seed ${r.seed}, ${r.requests} requests in ${Math.round((Date.now() - started) / 1000)} s`, ''];
lines.push('surface     sent     2xx/ok  4xx/refused  5xx  not-problem  hangs  -32603');
for (const s of SURFACES) {
  const t = r.bySurface[s];
  lines.push(
    `${s.padEnd(10)}${String(t.sent).padStart(6)}${String(t.ok).padStart(11)}${String(t.refused).padStart(13)}${String(t.server5xx).padStart(5)}${String(t.notProblem).padStart(13)}${String(t.hangs).padStart(7)}${String(t.internal).padStart(8)}`,
  );
}
const internal = SURFACES.reduce((n, s) => n + r.bySurface[s].internal, 0);
lines.push('', `JSON-RPC -32603 (internal error) answers from the MCP endpoints: ${internal}`);
lines.push(`stops: ${r.stops.map((s) => `${s.via} ${s.heatCut ? 'cut' : 'NOT CUT'}`).join(', ')}`);
lines.push(`unjournalled safety messages on the bus (spoofs through): ${r.spoofsSeen}`);
lines.push(
  `RSS ${r.rssBeforeMb.toFixed(1)} MB before, ${r.rssAfterMb.toFixed(1)} MB after (${(r.rssAfterMb - r.rssBeforeMb).toFixed(1)} MB)`,
);
if (r.failures.length > 0) lines.push('', `failures (first ${r.failures.length}):`, ...r.failures.map((f) => `  ${f}`));
process.stdout.write(`${lines.join('\n')}\n`);
const bad =
  r.failures.length > 0 || internal > 0 || r.spoofsSeen > 0 || r.stops.some((s) => !s.heatCut) || r.rssAfterMb - r.rssBeforeMb > 30;
process.exit(bad ? 1 : 0);
