/** The robot and safety helpers: explain a step, dry-run a recipe on a device preset, check a temperature trace. */
import { dryRun } from '../../../safety/dry-run.js';
import { checkTemperature } from '../../../safety/envelope-check.js';
import { getOp } from '../../../schemas/vocab.js';
import { ApiError, LANG, str } from '../params.js';
import { opInfo, verification } from './present.js';
import type { Operation } from './route-types.js';
import { rowOr404 } from './routes-find.js';

export const ROBOT_OPERATIONS: Operation[] = [
  {
    operationId: 'explainStep',
    method: 'GET',
    path: '/api/explain-step',
    summary: 'Explain one step of a recipe',
    description: 'The operation, its envelope, hazards and whether a person must be present.',
    params: [
      { name: 'recipe_id', type: 'string', description: 'Recipe id.', required: true },
      { name: 'node', type: 'string', description: 'Step id such as n3.', required: true },
      LANG,
    ],
    run: (cat, q) => {
      const r = rowOr404(cat, str(q, 'recipe_id'));
      const nodeId = str(q, 'node');
      const n = r.nodeOps.find((x) => x.id === nodeId);
      if (!n) throw new ApiError(404, 'not_found', `recipe ${r.id} has no step ${JSON.stringify(nodeId ?? '')}`);
      const info = opInfo(n.op);
      const env = getOp(n.op)?.envelope;
      const presence = r.level === 'V0' || env?.unattended !== true;
      return {
        recipe_id: r.id,
        node: n.id,
        verification: verification(r),
        ...info,
        person_present_required: presence,
        why:
          r.level === 'V0'
            ? 'V0 recipe: a person cooks from the original steps.'
            : env?.unattended === true
              ? 'The operation may run unattended.'
              : 'The operation may not run unattended.',
        step_text_published: !r.factsOnly,
      };
    },
  },
  {
    operationId: 'dryRun',
    method: 'POST',
    path: '/api/dry-run',
    summary: 'Can this device cook this recipe',
    description: 'Accepted with a plan, or refused with the first blocking reason. Nothing is executed; a plan is not proof of safety.',
    params: [],
    body: {
      type: 'object',
      required: ['recipe_id', 'device'],
      properties: {
        recipe_id: { type: 'string' },
        device: { type: 'string', description: 'Preset id from /api/devices.' },
        human_present: { type: 'boolean', default: false },
      },
      additionalProperties: false,
    },
    run: (cat, _q, body) => {
      const b = body as { recipe_id: string; device: string; human_present?: boolean };
      const r = rowOr404(cat, b.recipe_id);
      const device = cat.devices.get(b.device);
      if (!device) throw new ApiError(404, 'not_found', `no device preset ${JSON.stringify(b.device)}; see /api/devices`);
      const result = dryRun({ recipe: r.doc(), capabilities: device, humanPresent: b.human_present === true });
      return {
        recipe_id: r.id,
        device: b.device,
        human_present: b.human_present === true,
        verification: verification(r),
        ...result,
        note: 'A dry run is a plan, not proof of safety. Nothing was executed.',
      };
    },
  },
  {
    operationId: 'checkTemperature',
    method: 'POST',
    path: '/api/check-temperature',
    summary: 'Is this temperature log inside the safe band',
    description: "Checks readings against an operation's envelope, for example cw.op.simmer.",
    params: [],
    body: {
      type: 'object',
      required: ['operation', 'readings'],
      properties: {
        operation: { type: 'string' },
        readings: {
          type: 'array',
          maxItems: 100000,
          items: { type: 'object', required: ['t', 'tempC'], properties: { t: { type: 'number' }, tempC: { type: 'number' } } },
        },
        altitude_m: { type: 'number' },
      },
      additionalProperties: false,
    },
    run: (_cat, _q, body) => {
      const b = body as { operation: string; readings: { t: number; tempC: number }[]; altitude_m?: number };
      if (!getOp(b.operation))
        throw new ApiError(404, 'not_found', `unknown operation ${JSON.stringify(b.operation)}; see /api/operations`);
      const res = checkTemperature({
        op: b.operation,
        readings: b.readings,
        ...(b.altitude_m !== undefined ? { altitudeM: b.altitude_m } : {}),
      });
      return { operation: b.operation, ...res, band: opInfo(b.operation).tempC ?? null };
    },
  },
];
