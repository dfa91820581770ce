// @slow: runs the README walkthrough against a started hub (npm run test:fast skips this file; npm test runs it)
/** README's walkthrough as a user pastes it; the runner and its two port substitutions: test-support/walkthrough.ts. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot } from '../../test-support/cli.js';
import { runBlock, walkthroughBlock } from '../../test-support/walkthrough.js';

t.test('the README walkthrough runs verbatim and every step succeeds', async (t) => {
  await runBlock(t, walkthroughBlock(readFileSync(join(repoRoot, 'README.md'), 'utf8'), '### Walkthrough: refuse, cook, stop'));
});
