/** The scope matrix rows of relief on a coordinator hub (the matrix hub coordinates relief). */
import { type Row, reliefAllocation, reliefNeed, reliefNeedBody, reliefPledge, reliefPledgeBody, SVC } from './scope-fixtures.js';

export const RELIEF_ROWS: Row[] = [
  { method: 'GET', route: '/svc/v1/relief/needs', need: 'read', ok: 200 },
  { method: 'POST', route: '/svc/v1/relief/needs', need: 'relief', ok: 201, setup: () => ({ body: reliefNeedBody() }) },
  {
    method: 'GET',
    route: '/svc/v1/relief/needs/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/needs/${reliefNeed(h)}` }),
  },
  { method: 'GET', route: '/svc/v1/relief/pledges', need: 'read', ok: 200 },
  { method: 'POST', route: '/svc/v1/relief/pledges', need: 'relief', ok: 201, setup: () => ({ body: reliefPledgeBody() }) },
  {
    method: 'GET',
    route: '/svc/v1/relief/pledges/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/pledges/${reliefPledge(h)}` }),
  },
  { method: 'GET', route: '/svc/v1/relief/allocations', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/relief/allocations',
    need: 'relief',
    ok: 201,
    setup: (h) => ({ body: { svc: SVC, need: reliefNeed(h), assignments: [{ pledge: reliefPledge(h) }] } }),
  },
  {
    method: 'GET',
    route: '/svc/v1/relief/allocations/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/allocations/${reliefAllocation(h).id}` }),
  },
  {
    method: 'POST',
    route: '/svc/v1/relief/allocations/:id/handover',
    need: 'relief',
    ok: 200,
    setup: (h) => {
      const a = reliefAllocation(h);
      return { path: `/svc/v1/relief/allocations/${a.id}/handover`, body: { pledge: a.pledge, step: 'delivered' } };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/relief/needs/:id/close',
    need: 'relief',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/needs/${reliefNeed(h)}/close`, body: { reason: 'matrix' } }),
  },
  {
    method: 'POST',
    route: '/svc/v1/relief/pledges/:id/withdraw',
    need: 'relief',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/pledges/${reliefPledge(h)}/withdraw`, body: {} }),
  },
  {
    method: 'POST',
    route: '/svc/v1/relief/allocations/:id/cancel',
    need: 'relief',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/relief/allocations/${reliefAllocation(h).id}/cancel`, body: {} }),
  },
];
