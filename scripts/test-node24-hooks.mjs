// Loaded into every Node process of the Node 24 test run (scripts/test-node24.mjs puts it in NODE_OPTIONS, so the
// hubs, guards and CLI runs the tests start get it too). npm ci built the native addons that use V8's own API
// (better-sqlite3, and on a hardware rig i2c-bus and epoll) for the Node that installed them, and Node 24 refuses
// a binary of another ABI. The runner builds each of them again for Node 24 under node_modules/.cache; this hook
// hands those builds out when the package asks for its own `build/Release/*.node`, and nothing else changes: the
// package's JavaScript, and every other module, load from node_modules as they would for a user.
//
// HEARTH_TEST_NATIVES is {"abi": "137", "map": {"<node_modules/...>.node": "<cache/...>.node"}}. A process whose
// ABI is not the one the builds are for (a Node 20 started by a test) is left alone.
import module from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const spec = process.env.HEARTH_TEST_NATIVES ? JSON.parse(process.env.HEARTH_TEST_NATIVES) : undefined;
if (spec && spec.abi === process.versions.modules && typeof module.registerHooks === 'function') {
  const map = new Map(Object.entries(spec.map).map(([from, to]) => [from, pathToFileURL(to).href]));
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (!resolved.url?.startsWith('file:') || !resolved.url.endsWith('.node')) return resolved;
      const to = map.get(fileURLToPath(resolved.url));
      return to ? { ...resolved, url: to, shortCircuit: true } : resolved;
    },
  });
}
