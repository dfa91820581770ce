// Runs the TypeScript sources under Node for tests: `node --import ./test-support/ts-loader/register.mjs x.ts`.
// tap passes it to every test process (package.json, "tap": {"node-arg": [...]}); hooks.mjs says what it does.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
