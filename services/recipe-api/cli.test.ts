/** What `hearth recipe-api serve` decides before it loads the catalog (cli.ts); the command itself runs in cache-location.test.ts. */
import t from 'tap';
import { maglevOnlyDuringLoad } from './cli.js';

const NODE24 = '13.6.233.17-node.40';

t.test('TurboFan is off during the load only where V8 has Maglev to fall back on', async (t) => {
  // execArgv given as [] throughout: the test process's own flags must not decide a case.
  t.ok(maglevOnlyDuringLoad({}, NODE24, 'x64', []), 'Node 24 on x64');
  t.ok(maglevOnlyDuringLoad({}, '12.4.254.21-node.33', 'arm64', []), 'Node 22 on a 64-bit Pi');
  t.notOk(
    maglevOnlyDuringLoad({}, '11.3.244.8-node.30', 'x64', []),
    'Node 20: V8 11 runs no Maglev by default, the load would go unoptimized',
  );
  t.notOk(maglevOnlyDuringLoad({}, NODE24, 'arm', []), 'a 32-bit Pi OS: no Maglev on arm');
  t.notOk(maglevOnlyDuringLoad({ HEARTH_LOAD_TURBOFAN: 'on' }, NODE24, 'x64', []), 'HEARTH_LOAD_TURBOFAN=on keeps it');
  t.ok(maglevOnlyDuringLoad({ NODE_OPTIONS: '--max-semi-space-size=2' }, NODE24, 'x64', ['--enable-source-maps']), 'other flags');
  t.ok(maglevOnlyDuringLoad({}, NODE24, 'x64', ['--optimize-for-size']), 'a flag that only begins like --opt');
});

t.test('the tiers are left as the command line or NODE_OPTIONS asked, however the flag is spelled', async (t) => {
  const asked: [string, string[], string?][] = [
    ['Maglev turned off', ['--no-maglev']],
    ['TurboFan turned off (nor turned back on after the load)', ['--no-turbofan']],
    ['--no-opt, the alias of --no-turbofan', ['--no-opt']],
    ['--opt', ['--opt']],
    ['--turbofan', ['--turbofan']],
    ['--always-turbofan', ['--always-turbofan']],
    ['an underscore spelling', ['--no_turbofan']],
    ['--no_maglev', ['--no_maglev']],
    ['--max_opt=2', ['--max_opt=2']],
    ['--jitless', ['--jitless']],
    ['--lite-mode', ['--lite_mode']],
    ['the tiers limited in NODE_OPTIONS', [], '--max-opt=2'],
    ['--no_opt in NODE_OPTIONS', [], '--max-old-space-size=64 --no_opt'],
  ];
  for (const [what, execArgv, nodeOptions] of asked)
    t.notOk(maglevOnlyDuringLoad(nodeOptions !== undefined ? { NODE_OPTIONS: nodeOptions } : {}, NODE24, 'x64', execArgv), what);
});
