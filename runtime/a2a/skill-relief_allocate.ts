/**
 * relief_allocate: pledges allocated to a relief need on a coordinator hub, by the same service as
 * `POST /svc/v1/relief/allocations` and the MCP tool `relief_allocate` (runtime/hub/relief/relief.ts): the Allocation
 * record comes back as the artifact and the need's remaining meals go down. Refused as REST refuses:
 * relief-mismatch (an allergen the need avoids, a dietary requirement not met, too late), over-allocation (more
 * meals than the need lacks or the pledges provide), not-found, and not-coordinator on any other hub.
 */
import type { Json } from '../../services/index/entry.js';
import type { AllocationInput } from '../hub/relief/index.js';
import { allocationToolSchema } from '../mcp/tools-relief.js';
import { defineSkill, toolScopes } from './define.js';

export const reliefAllocate = defineSkill<AllocationInput>({
  id: 'relief_allocate',
  name: 'Relief allocation',
  description:
    'On a relief coordinator hub: allocate pledges (food, meals, kitchen or robot capacity, transport) to an open need; returns the Allocation with the meals it covers, and the need’s remaining meals go down. Refused with relief-mismatch when a pledge’s food contains an allergen the need avoids or does not meet its dietary requirements (halal…), with over-allocation when it asks for more than remains, and with not-coordinator on a hub that does not coordinate relief. Needs the scope relief.',
  tags: ['relief', 'allocation', 'humanitarian'],
  examples: [
    '{"skill":"relief_allocate","input":{"svc":"0.2.0","need":"need-2026-11-03-shubra","assignments":[{"pledge":"pl-881","to":"https://kitchen-1.foodbank.example"},{"pledge":"pl-882"}],"coverage":{"meals":650}}}',
  ],
  usage: '{svc, need, assignments: [{pledge, to?, meals?, items?}], coverage?: {meals}, production?, gaps?}',
  scopes: toolScopes('relief_allocate'),
  input: allocationToolSchema,
  perform(d, a, p) {
    const rec = d.relief.allocate(a, p);
    const need = d.relief.need(rec.need);
    return {
      kind: 'done',
      summary: `Allocation ${rec.id} to need ${rec.need}: ${rec.coverage.meals} meals (${rec.coverage.pct} %) from ${rec.assignments.map((x) => x.pledge).join(', ')}; ${need.remaining.meals} meals still needed (${need.status}).`,
      data: JSON.parse(JSON.stringify(rec)) as Json,
    };
  },
});
