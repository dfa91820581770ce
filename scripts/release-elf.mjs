// Which machine a native module was built for, read from its ELF header (no `file` command needed), and the check
// scripts/release.mjs runs over a staged release before it writes a tarball: every `.node` file must be a 64-bit
// little-endian ELF shared object for the release's architecture.
import { open, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** e_machine values (ELF specification) of the architectures a release can target, and a few it must refuse. */
const MACHINES = { 3: 'x86', 40: 'arm', 62: 'x64', 183: 'arm64', 243: 'riscv64' };

/** Node's process.arch names of the release targets, with their e_machine. */
export const ELF_MACHINE = { x64: 62, arm64: 183 };

/**
 * Read the ELF identification and e_machine of `file`. Returns `{ elf: false, what }` for anything else (a Mach-O
 * or PE file from another platform's prebuilds, a truncated file).
 */
export async function elfInfo(file) {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(20);
    const { bytesRead } = await fh.read(head, 0, 20, 0);
    if (bytesRead < 20 || head.readUInt32BE(0) !== 0x7f454c46) {
      const magic = bytesRead >= 4 ? head.readUInt32BE(0) : 0;
      const what =
        magic === 0xcffaedfe || magic === 0xcafebabe
          ? 'a Mach-O file'
          : head.subarray(0, 2).toString('latin1') === 'MZ'
            ? 'a PE (Windows) file'
            : 'not an ELF file';
      return { elf: false, what };
    }
    const bits = head[4] === 2 ? 64 : 32;
    const little = head[5] === 1;
    const machine = little ? head.readUInt16LE(18) : head.readUInt16BE(18);
    const name = MACHINES[machine] ?? `e_machine ${machine}`;
    return { elf: true, bits, little, machine, what: `ELF ${bits}-bit ${little ? 'LSB' : 'MSB'} ${name}` };
  } finally {
    await fh.close();
  }
}

/** Every `.node` file under `dir` (symbolic links are not followed). */
export async function nodeFiles(dir) {
  const out = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.node')) out.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return out.sort();
}

/**
 * Check every `.node` file under `dir` against `arch` (`x64` or `arm64`). Returns the list of files checked and
 * the problems found, one line each, with paths relative to `dir`.
 */
export async function checkNativeArch(dir, arch) {
  const want = ELF_MACHINE[arch];
  if (want === undefined) throw new Error(`unknown architecture ${arch}`);
  const files = await nodeFiles(dir);
  const problems = [];
  for (const file of files) {
    const info = await elfInfo(file);
    if (!info.elf || info.bits !== 64 || !info.little || info.machine !== want)
      problems.push(`${relative(dir, file)}: ${info.what}, not ELF 64-bit LSB ${arch}`);
  }
  return { files: files.map((f) => relative(dir, f)), problems };
}
