import type { Rig } from '../../drivers/types.js';

/** Drive every heater output of the rig off now; if the rig's own cut throws, each output in turn, whatever fails. */
export function cutEveryHeater(rig: Pick<Rig, 'allHeatOff' | 'heaters'>): void {
  try {
    rig.allHeatOff();
  } catch {
    for (const h of rig.heaters.values()) {
      try {
        h.off();
      } catch {
        // keep going: every other output must still be cut
      }
    }
  }
}
