/** docs/configuration.md lists every `hearth start` option (as commander defines them) and every config key. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from '../../../test-support/cli.js';
import { configSchema, parseConfig } from '../../config/config.js';
import { registerStart } from './start.js';

const doc = readFileSync(`${repoRoot}docs/configuration.md`, 'utf8');
/** The option table: first cell the command-line option, second the file key (`—` where there is none). */
const rows = doc
  .split('\n')
  .filter((l) => l.startsWith('| '))
  .map((l) => l.split('|').map((c) => c.trim()))
  .map((cells) => ({ option: cells[1] ?? '', key: cells[2] ?? '' }));

function startCommand(): Command {
  const program = new Command();
  registerStart(program);
  const start = program.commands.find((c) => c.name() === 'start');
  if (!start) throw new Error('no start command');
  return start;
}

t.test('every hearth start option has a row in docs/configuration.md', async (t) => {
  const options = startCommand().options.map((o) => o.long);
  t.ok(options.length >= 20, `read the options of the commander definition (${options.length})`);
  for (const long of options) {
    t.ok(
      rows.some((r) => r.option === `\`${long}\``),
      `${long} is documented`,
    );
  }
  const documented = rows.map((r) => r.option).filter((o) => o.startsWith('`--'));
  t.same(
    documented.filter((o) => !options.includes(o.slice(1, -1))),
    [],
    'and the table lists no option hearth start does not have',
  );
});

t.test('every config file key has a row in docs/configuration.md', async (t) => {
  for (const key of Object.keys(configSchema.properties))
    t.ok(
      rows.some((r) => r.key === `\`${key}\``),
      `${key} is documented`,
    );
});

t.test('the example hearth.yaml is a valid config file', async (t) => {
  const yaml = /Example `hearth\.yaml`:\n\n```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
  t.ok(yaml, 'the example is there');
  const config = parseConfig(parseYaml(yaml ?? ''), 'hearth.yaml', '/etc/hearth');
  t.equal(config.httpPort, 8080);
  t.ok(Object.keys(config).length >= 8);
});
