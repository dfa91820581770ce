/** Kinds over table rules: units, execution_transition, mission_transition, registry_name, registry_version. */
import { canTransition } from '../../core/execution-states.js';
import { missionTransitionAllowed } from '../../core/profiles/mission-transition.js';
import { checkRegistryName, checkRegistryVersion } from '../../core/registry-names.js';
import { checkQuantity, convert, UnitError } from '../../core/units.js';
import { type KindHandler, VectorInputError } from '../types.js';

/**
 * A conversion (`{value, unit, to, density?}` → `{value}`, or `{error: <code>}` when the rule refuses it, e.g.
 * `needs_density` for mass↔volume without a density) or a quantity check (`{quantity}` → `{schemaValid}`).
 */
const units: KindHandler = (input, ctx) => {
  if (input.quantity !== undefined) return { schemaValid: checkQuantity(input.quantity, ctx.data.units).length === 0 };
  if (typeof input.value !== 'number' || typeof input.unit !== 'string' || typeof input.to !== 'string') {
    throw new VectorInputError('units input needs {value, unit, to} or {quantity}');
  }
  const density = input.density ?? input.densityGPerMl;
  const opts = typeof density === 'number' ? { densityGPerMl: density } : {};
  try {
    return { value: convert(input.value, input.unit, input.to, ctx.data.units, opts) };
  } catch (err) {
    if (err instanceof UnitError) return { error: err.code };
    throw err;
  }
};

const executionTransition: KindHandler = (input) => ({
  allowed: typeof input.from === 'string' && typeof input.to === 'string' && canTransition(input.from, input.to),
});

const missionTransition: KindHandler = (input, ctx) => ({
  allowed: missionTransitionAllowed(ctx.data.missions, input.from, input.to, input.role),
});

const registryName: KindHandler = (input) => {
  const reason = checkRegistryName(input.name);
  return { valid: reason === null, reason: reason ?? 'ok' };
};

const registryVersion: KindHandler = (input) => {
  const reason = checkRegistryVersion(input.version);
  return { exact: reason === null, reason: reason ?? 'ok' };
};

export const ruleKinds: Record<string, KindHandler> = {
  units,
  execution_transition: executionTransition,
  mission_transition: missionTransition,
  registry_name: registryName,
  registry_version: registryVersion,
};
