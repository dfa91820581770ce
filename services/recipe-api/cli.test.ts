/** What `hearth recipe-api serve` decides before it loads the catalog (cli.ts); the command itself runs in cache-location.test.ts. */
import t from 'tap';
import { maglevOnlyDuringLoad } from './cli.js';

t.test('TurboFan is off during the load only where V8 has Maglev to fall back on', async (t) => {
  t.ok(maglevOnlyDuringLoad({}, '13.6.233.17-node.40', 'x64'), 'Node 24 on x64');
  t.ok(maglevOnlyDuringLoad({}, '12.4.254.21-node.33', 'arm64'), 'Node 22 on a 64-bit Pi');
  t.notOk(maglevOnlyDuringLoad({}, '11.3.244.8-node.30', 'x64'), 'Node 20: V8 11 runs no Maglev by default, the load would go unoptimized');
  t.notOk(maglevOnlyDuringLoad({}, '13.6.233.17-node.40', 'arm'), 'a 32-bit Pi OS: no Maglev on arm');
  t.notOk(maglevOnlyDuringLoad({ HEARTH_LOAD_TURBOFAN: 'on' }, '13.6.233.17-node.40', 'x64'), 'HEARTH_LOAD_TURBOFAN=on keeps it');
  t.notOk(maglevOnlyDuringLoad({}, '13.6.233.17-node.40', 'x64', ['--no-maglev']), 'Maglev turned off on the command line');
  t.notOk(maglevOnlyDuringLoad({ NODE_OPTIONS: '--max-opt=2' }, '13.6.233.17-node.40', 'x64', []), 'or the tiers limited in NODE_OPTIONS');
  t.notOk(maglevOnlyDuringLoad({}, '13.6.233.17-node.40', 'x64', ['--no-turbofan']), 'nor turned back on after the load when it was off');
  t.ok(
    maglevOnlyDuringLoad({ NODE_OPTIONS: '--max-semi-space-size=2' }, '13.6.233.17-node.40', 'x64', ['--enable-source-maps']),
    'other flags',
  );
});
