import t from 'tap';
import { checksum, encodeFrame, intArg, isFrame, LineSplitter, parseFrame } from './serial-protocol.js';

t.test('frames carry an XOR checksum of their body', async (t) => {
  t.equal(checksum('TMP'), (0x54 ^ 0x4d ^ 0x50).toString(16).toUpperCase().padStart(2, '0'));
  t.equal(encodeFrame('PWR', 500), `$PWR,500*${checksum('PWR,500')}\n`);
  t.same(parseFrame(encodeFrame('HBT', 42).trim()), { cmd: 'HBT', args: ['42'] });
  t.same(parseFrame(`${encodeFrame('TMP', -250).trim()}\r`), { cmd: 'TMP', args: ['-250'] }, 'CRLF accepted');
});

t.test('parsing is strict', async (t) => {
  const good = encodeFrame('PWR', 500).trim();
  t.same(parseFrame(good.replace(/\*..$/, '*00')), { error: 'CS', line: good.replace(/\*..$/, '*00') });
  for (const bad of [
    'PWR,500*11',
    '$pwr,500*11',
    '$PWR,500',
    '$PWR,,5*11',
    '$PWRX*11',
    '$PWR 500*11',
    '$PWR,500*1g',
    '',
    '$*00',
    `$PWR,${'1'.repeat(80)}*00`,
  ]) {
    const r = parseFrame(bad);
    t.notOk(isFrame(r), `rejects ${JSON.stringify(bad.slice(0, 20))}`);
  }
  t.equal(intArg('500', 0, 1000), 500);
  t.equal(intArg('1001', 0, 1000), null);
  t.equal(intArg('5e2', 0, 1000), null);
  t.equal(intArg('0x10', 0, 1000), null);
  t.equal(intArg(undefined, 0, 1), null);
});

t.test('the line splitter reassembles chunks and cuts runaway lines', async (t) => {
  const lines: string[] = [];
  const s = new LineSplitter();
  s.push('$HB', (l) => lines.push(l));
  s.push(Buffer.from('T,1*00\n$TM'), (l) => lines.push(l));
  t.same(lines, ['$HBT,1*00']);
  s.push('x'.repeat(300), (l) => lines.push(l));
  t.equal(lines.length, 2, 'a line with no end is flushed rather than growing forever');
});
