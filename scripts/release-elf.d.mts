// Types of scripts/release-elf.mjs, for the tests.
export declare const ELF_MACHINE: { x64: number; arm64: number };
export declare function elfInfo(file: string): Promise<{ elf: boolean; bits?: number; little?: boolean; machine?: number; what: string }>;
export declare function nodeFiles(dir: string): Promise<string[]>;
export declare function checkNativeArch(dir: string, arch: string): Promise<{ files: string[]; problems: string[] }>;
