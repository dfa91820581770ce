/** Every vector kind the runner knows (semantics §12). A kind missing here fails its vectors; it never skips them. */
import type { KindHandler } from '../types.js';
import { cryptoKinds } from './crypto.js';
import { profileKinds } from './profiles.js';
import { ruleKinds } from './rules.js';
import { safetyKinds } from './safety.js';

export const kinds: Readonly<Record<string, KindHandler>> = Object.freeze({
  ...cryptoKinds,
  ...ruleKinds,
  ...profileKinds,
  ...safetyKinds,
});

export function handlerFor(kind: string): KindHandler | undefined {
  return Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
}
