import t from 'tap';
import { consoleProgress } from './progress.js';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, columns: 80, chunks, write: (s: string) => chunks.push(s) };
}

t.test('on a terminal the bar is redrawn in place, then the line is ended', async (t) => {
  const s = stream(true);
  let now = 0;
  const p = consoleProgress(s, () => now);
  for (let i = 1; i <= 100; i++) {
    now += 1;
    p.onProgress({ phase: 'read', done: i, total: 100 });
  }
  p.onProgress({ phase: 'write', done: 100, total: 100 });
  p.done();
  const out = s.chunks.join('');
  t.ok(s.chunks.filter((c) => c.startsWith('\r')).length < 10, 'redraws are throttled');
  t.match(out, /\r\[#{30,}\] 100% reading recipes 100\/100\n/);
  t.match(out, /writing recipes 100\/100\n$/);
});

t.test('off a terminal: one plain line per phase, no carriage returns', async (t) => {
  const s = stream(false);
  const p = consoleProgress(s);
  for (let i = 1; i <= 5; i++) p.onProgress({ phase: 'read', done: i, total: 5 });
  p.onProgress({ phase: 'sign', done: 0, total: 1 });
  p.onProgress({ phase: 'sign', done: 1, total: 1 });
  p.done();
  t.same(s.chunks, ['reading recipes: 5/5\n', 'signing manifest: done\n']);
});
