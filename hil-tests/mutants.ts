/**
 * `npm run hil:mutants [-- control…]`: the mutation run (hil-tests/mutation-run.ts) for every safety control,
 * or the ones named. Prints `control → scenario → killed` per line; exit 1 when a mutant survives, a scenario
 * fails with every control on, or a control has no scenario; 2 for an unknown control name.
 */
import { SAFETY_CONTROLS } from '../safety/controls.js';
import { mutationRun, rowLine } from './mutation-run.js';

async function main(): Promise<number> {
  const named = process.argv.slice(2).filter((a) => a !== '--');
  const unknown = named.filter((c) => !(SAFETY_CONTROLS as readonly string[]).includes(c));
  if (unknown.length > 0) {
    process.stderr.write(`hil:mutants: no control ${unknown.join(', ')} (controls: ${SAFETY_CONTROLS.join(', ')})\n`);
    return 2;
  }
  const began = Date.now();
  const rows = await mutationRun({
    ...(named.length > 0 ? { controls: named } : {}),
    onRow: (r) => process.stdout.write(`${rowLine(r)}\n`),
  });
  const bad = rows.filter((r) => r.verdict !== 'killed').length;
  const took = `${((Date.now() - began) / 1000).toFixed(1)} s`;
  process.stdout.write(bad === 0 ? `every control killed (${rows.length} mutants, ${took})\n` : `${bad} problem(s) (${took})\n`);
  return bad === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`hil:mutants: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
