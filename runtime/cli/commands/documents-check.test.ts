import t from 'tap';
import { runCli, scratchFiles } from '../../../test-support/cli.js';

const { file } = scratchFiles(t, 'hearth-check-');

t.test('check-temperature', async (t) => {
  const simmer = file('simmer.json', [
    { t: 0, tempC: 40 },
    { t: 30, tempC: 88 },
    { t: 60, tempC: 94 },
    { t: 90, tempC: 95 },
  ]);
  const ok = await runCli(['check-temperature', '--op', 'cw.op.simmer', '--trace', simmer, '--target', '94', '--tolerance', '2']);
  t.same([ok.code, ok.stdout.trim()], [0, 'ok: cw.op.simmer (band 85–96 °C), envelope kept, target met, 4 readings']);
  const boils = file('boils.json', {
    readings: [
      { t: 0, tempC: 90 },
      { t: 30, tempC: 99 },
    ],
  });
  const b = await runCli(['check-temperature', '--op', 'cw.op.simmer', '--trace', boils, '--json']);
  t.equal(b.code, 1);
  t.same(JSON.parse(b.stdout), { envelopeOk: false, targetOk: null, reason: 'left_envelope' });
  const high = file('high.json', [{ t: 0, tempC: 93 }]);
  const alt = await runCli(['check-temperature', '--op', 'cw.op.boil', '--trace', high, '--altitude', '2400', '--json']);
  t.same([alt.code, JSON.parse(alt.stdout).reason], [0, 'ok']);
  const bad: [string[], RegExp][] = [
    [['check-temperature', '--op', 'cw.op.nope', '--trace', simmer], /unknown operation cw\.op\.nope/],
    [
      ['check-temperature', '--op', 'cw.op.simmer', '--trace', file('strtemp.json', [{ t: 0, tempC: '90' }])],
      /reading 0 must be \{t, tempC\}/,
    ],
    [
      ['check-temperature', '--op', 'cw.op.simmer', '--trace', simmer, '--target', 'hot', '--tolerance', '2'],
      /--target hot is not a number/,
    ],
    [['check-temperature', '--op', 'cw.op.simmer', '--trace', simmer, '--target', '90'], /--target and --tolerance go together/],
    [['check-temperature', '--op', 'cw.op.simmer', '--trace', file('obj.json', { a: 1 })], /must hold an array/],
  ];
  for (const [args, re] of bad) {
    const r = await runCli(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, re);
  }
});
