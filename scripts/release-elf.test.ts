/** The release's architecture check reads ELF headers: this machine's own add-on, other machines' headers, non-ELF files. */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot, scratchFiles } from '../test-support/cli.js';
import { checkNativeArch, elfInfo } from './release-elf.mjs';

/** The first 20 bytes of an ELF file: class, byte order, and e_machine at offset 18. */
function header(machine: number, { bits = 64, little = true } = {}): Buffer {
  const b = Buffer.alloc(64);
  b.writeUInt32BE(0x7f454c46, 0);
  b[4] = bits === 64 ? 2 : 1;
  b[5] = little ? 1 : 2;
  if (little) b.writeUInt16LE(machine, 18);
  else b.writeUInt16BE(machine, 18);
  return b;
}

const hostAddon = join(repoRoot, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');

t.test('elfInfo reads the machine of real and made-up files', async (t) => {
  const { dir, file: text } = scratchFiles(t, 'hearth-elf-');
  const file = (name: string, bytes: Buffer | string) => {
    if (typeof bytes === 'string') return text(name, bytes);
    writeFileSync(join(dir, name), bytes);
    return join(dir, name);
  };
  const host = await elfInfo(hostAddon);
  t.match(host, { elf: true, bits: 64, little: true }, "this checkout's better-sqlite3 is a 64-bit ELF");
  t.equal(host.machine, process.arch === 'arm64' ? 183 : 62);
  t.match(await elfInfo(file('arm64.node', header(183))), { elf: true, machine: 183, what: 'ELF 64-bit LSB arm64' });
  t.match(await elfInfo(file('armv7.node', header(40, { bits: 32 }))), { elf: true, bits: 32, what: 'ELF 32-bit LSB arm' });
  const macho = Buffer.alloc(32);
  macho.writeUInt32BE(0xcffaedfe, 0);
  t.match(await elfInfo(file('mac.node', macho)), { elf: false, what: 'a Mach-O file' });
  t.match(await elfInfo(file('win.node', Buffer.concat([Buffer.from('MZ'), Buffer.alloc(30)]))), {
    elf: false,
    what: 'a PE (Windows) file',
  });
  t.match(await elfInfo(file('short.node', 'ELF')), { elf: false, what: 'not an ELF file' });
});

t.test('checkNativeArch passes a tree of the right machine only, naming each wrong file', async (t) => {
  const { dir, file } = scratchFiles(t, 'hearth-elf-tree-');
  mkdirSync(join(dir, 'node_modules/a/lib'), { recursive: true });
  writeFileSync(join(dir, 'node_modules/a/lib/a.node'), header(183));
  file('node_modules/readme.txt', 'not a module');
  t.same(await checkNativeArch(dir, 'arm64'), { files: ['node_modules/a/lib/a.node'], problems: [] });
  copyFileSync(hostAddon, join(dir, 'node_modules/a/host.node'));
  writeFileSync(join(dir, 'node_modules/a/armv7.node'), header(40, { bits: 32 }));
  const r = await checkNativeArch(dir, 'arm64');
  t.equal(r.files.length, 3);
  t.same(
    r.problems.sort(),
    [
      'node_modules/a/armv7.node: ELF 32-bit LSB arm, not ELF 64-bit LSB arm64',
      `node_modules/a/host.node: ELF 64-bit LSB ${process.arch === 'arm64' ? 'arm64' : 'x64'}, not ELF 64-bit LSB arm64`,
    ].filter((p) => process.arch !== 'arm64' || !p.includes('host.node')),
  );
  await t.rejects(checkNativeArch(dir, 'sparc'), /unknown architecture/);
});
