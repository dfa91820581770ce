/** Where the standard's shared material lives (../shared beside the repository), when it is present. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const sharedDir = fileURLToPath(new URL('../../shared/', import.meta.url));
export const referenceDir = `${sharedDir}reference/`;
export const hasShared = existsSync(referenceDir);
