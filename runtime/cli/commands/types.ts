import type { Command } from 'commander';

/** A CLI command module registers its command(s) on the program. */
export type RegisterCommand = (program: Command) => void;
