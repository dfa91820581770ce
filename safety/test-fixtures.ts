/** Small documents the safety tests build on (tests only). */
import type { Capabilities, ProcessNode } from './types.js';

export function recipeOf(...nodes: Partial<ProcessNode>[]): { svc: string; id: string; process: { nodes: Partial<ProcessNode>[] } } {
  return { svc: '0.2.0', id: 'test', process: { nodes: nodes.map((n, i) => ({ id: `n${i + 1}`, ...n })) } };
}

export function device(ops: string[], sensors: Capabilities['capabilities']['sensors'] = []): Capabilities {
  return { svc: '0.2.0', capabilities: { ops: ops.map((op) => ({ op })), sensors } };
}

export const fryer = device(
  [
    'cw.op.deep_fry',
    'cw.op.saute',
    'cw.op.simmer',
    'cw.op.boil',
    'cw.op.cut',
    'cw.op.pressure_cook',
    'cw.op.heat',
    'cw.op.mix',
    'cw.op.bake',
  ],
  [
    { sensor: 'cw.sense.oil_temp', accuracy: 1 },
    { sensor: 'cw.sense.pan_surface_temp' },
    { sensor: 'cw.sense.liquid_temp' },
    { sensor: 'cw.sense.pressure' },
    { sensor: 'cw.sense.vision', visionCues: ['cw.sense.color_golden'] },
  ],
);

export const NOW = new Date('2026-10-05T12:00:00Z');
