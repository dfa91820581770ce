/**
 * The index's MCP endpoint (/v1/mcp) blames the right side, as the hub's does (runtime/mcp/invalid-params.test.ts):
 * -32602 naming the params the protocol's schema refuses, the latest supported version for an unsupported one.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { scratchFiles } from '../../../test-support/cli.js';
import { checkMcpErrorCodes } from '../../../test-support/mcp-errors.js';
import { buildIndex } from '../build/build.js';
import { FIXED_NOW, smallCatalog, testKey } from '../test-helpers.js';
import { createIndexServer } from './server.js';

t.test('the index: -32602 for invalid params, never -32603; version negotiation', async (t) => {
  const root = scratchFiles(t, 'hearth-index-mcp-').dir;
  for (const sub of ['recipes', 'out']) mkdirSync(join(root, sub));
  smallCatalog(join(root, 'recipes'), 3, 'mcp');
  buildIndex({ recipesDir: join(root, 'recipes'), outDir: join(root, 'out'), key: testKey(), now: FIXED_NOW });
  const { app } = createIndexServer({ dir: join(root, 'out'), now: FIXED_NOW, ratePerSecond: 1000, burst: 1000 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  await checkMcpErrorCodes(t, `${base}/v1/mcp`, {}, false);
});
