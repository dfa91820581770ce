/** An index server for the hostile-input harness (its /v1/mcp is the `indexmcp` surface): a few recipes, 127.0.0.1. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIndex } from '../services/index/build/build.js';
import { createIndexServer } from '../services/index/serve/server.js';
import { FIXED_NOW, smallCatalog, testKey } from '../services/index/test-helpers.js';

export async function startFuzzIndex(): Promise<{ url: string; close: () => Promise<void> }> {
  const root = mkdtempSync(join(tmpdir(), 'hearth-fuzz-index-'));
  for (const sub of ['recipes', 'out']) mkdirSync(join(root, sub));
  smallCatalog(join(root, 'recipes'), 5, 'fuzz');
  buildIndex({ recipesDir: join(root, 'recipes'), outDir: join(root, 'out'), key: testKey(), now: FIXED_NOW });
  // The rate limit is the index's own business (rate-limit.test.ts): here it would only turn calls into 429s.
  const { app } = createIndexServer({ dir: join(root, 'out'), now: FIXED_NOW, ratePerSecond: 1e6, burst: 1e6 });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    close: async () => {
      await app.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
