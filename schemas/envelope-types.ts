/**
 * The envelope of an operation as the vocabulary states it (semantics §2). The safety kernel reads these shapes
 * (safety/types.ts re-exports them); they live here because schemas/ holds the data contract and imports
 * nothing above it.
 */

/** A closed temperature or pressure band. */
export interface Band {
  min: number;
  max: number;
}

/** The safe operating range of an operation (semantics §2). */
export interface Envelope {
  /** What the temperature is measured in: oil, water, pan_surface, air, steam, product, … */
  medium: string;
  tempC?: Band;
  pressureKPa?: Band;
  /** false: a responsible person must be present. */
  unattended: boolean;
  hazards?: string[];
  /** Verification rungs, best first: sensor ids, `model`, `time`, `human`. */
  sensorLadder?: string[];
  note?: string;
}
