/** The scope matrix rows of leases and handoffs. */
import { handoffId, leaseId, matrixVessel, type Row } from './scope-fixtures.js';

export const COORDINATION_ROWS: Row[] = [
  { method: 'GET', route: '/svc/v1/leases', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/leases',
    need: 'cook',
    ok: 201,
    setup: () => ({ body: { resource: matrixVessel() } }),
  },
  { method: 'GET', route: '/svc/v1/leases/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/leases/${leaseId(h)}` }) },
  {
    method: 'POST',
    route: '/svc/v1/leases/:id/renew',
    need: 'cook',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/leases/${leaseId(h)}/renew`, body: { ttlSeconds: 60 } }),
  },
  {
    method: 'POST',
    route: '/svc/v1/leases/:id/release',
    need: 'cook',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/leases/${leaseId(h)}/release` }),
  },
  { method: 'DELETE', route: '/svc/v1/leases/:id', need: 'cook', ok: 200, setup: (h) => ({ path: `/svc/v1/leases/${leaseId(h)}` }) },
  { method: 'GET', route: '/svc/v1/handoffs', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/handoffs',
    need: 'cook',
    ok: 201,
    setup: (h) => ({
      body: { item: 'tray', from: { kind: 'robot', id: h.app.ctx.device.capabilities.actor?.id }, to: { kind: 'human', id: 'amal' } },
    }),
  },
  { method: 'GET', route: '/svc/v1/handoffs/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/handoffs/${handoffId(h)}` }) },
  ...(['accept', 'complete', 'decline'] as const).map(
    (a): Row => ({
      method: 'POST',
      route: `/svc/v1/handoffs/:id/${a}`,
      need: 'cook',
      ok: 200,
      setup: (h) => ({ path: `/svc/v1/handoffs/${handoffId(h, a === 'complete')}/${a}`, body: {} }),
    }),
  ),
];
