/** Shapes shared by the conformance runner and its kind adapters. */
import type { DisclosureData } from '../core/profiles/disclosure-policy.js';
import type { MissionTransitionTable } from '../core/profiles/mission-transition.js';
import type { UnitsTable } from '../core/units.js';

/** One vector as the vector files carry it (semantics §12). */
export interface Vector {
  id: string;
  kind: string;
  description?: string;
  input: unknown;
  expected: unknown;
}

/** The project's data the rules need (core reads no files; the runner passes it in). */
export interface RuleData {
  units: UnitsTable;
  disclosure: DisclosureData;
  missions: MissionTransitionTable;
}

export interface KindContext {
  data: RuleData;
  /** The clock for rules whose input may leave the time out. */
  now: () => Date;
}

/** A kind's rule: judge one vector's input and return the result in the shape the kind's `expected` has. */
export type KindHandler = (input: Record<string, unknown>, ctx: KindContext) => unknown;

export class VectorInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VectorInputError';
  }
}
