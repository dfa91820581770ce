/**
 * Every CLI command module, in the order `hearth --help` lists them. A module exports a function that
 * registers its command(s) on the program. Add one import and one entry per module.
 */
import { registerCatalog } from './catalog.js';
import { registerConformance } from './conformance.js';
import { registerDocuments } from './documents.js';
import { registerHil, registerSafetyReport } from './hil.js';
import { registerIndex } from './index-cmd.js';
import { registerInit } from './init.js';
import { registerMandate } from './mandate.js';
import { registerPair } from './pair.js';
import { registerRecipeApi } from './recipe-api.js';
import { registerRegistry } from './registry.js';
import { registerRig } from './rig.js';
import { registerSafeOff } from './safe-off.js';
import { registerStart } from './start.js';
import { registerSync } from './sync.js';
import { registerToken } from './token.js';

import type { RegisterCommand } from './types.js';

export type { RegisterCommand } from './types.js';

export const commands: RegisterCommand[] = [
  registerStart,
  registerInit,
  registerToken,
  registerPair,
  registerMandate,
  registerIndex,
  registerCatalog,
  registerRecipeApi,
  registerConformance,
  registerDocuments,
  registerRegistry,
  registerRig,
  registerSafeOff,
  registerSync,
  registerHil,
  registerSafetyReport,
];
