/** The scope matrix rows of the kitchen: sessions, tasks, inventory, orders, notifications, mode, advice, quotes, household and team plans. */
import {
  adviceAnswer,
  agent,
  confirmed,
  confirmTask,
  human,
  matrixSender,
  planned,
  quoteBody,
  quoted,
  type Row,
  running,
  sessionBody,
} from './scope-fixtures.js';

export const KITCHEN_ROWS: Row[] = [
  { method: 'POST', route: '/svc/v1/sessions', need: 'cook', ok: 201, body: sessionBody },
  { method: 'GET', route: '/svc/v1/sessions', need: 'read', ok: 200 },
  { method: 'GET', route: '/svc/v1/sessions/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/sessions/${planned(h).id}` }) },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/confirm',
    need: 'cook',
    ok: 200,
    setup: (h) => {
      const s = planned(h);
      return { path: `/svc/v1/sessions/${s.id}/confirm`, body: { acknowledgedRules: s.confirmation.requiredRules } };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/start',
    need: 'cook',
    ok: 202,
    setup: (h) => ({ path: `/svc/v1/sessions/${confirmed(h).id}/start` }),
  },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/pause',
    need: 'cook',
    ok: 202,
    setup: async (h) => {
      const s = running(h);
      await h.clock.advanceAsync(2000);
      return { path: `/svc/v1/sessions/${s.id}/pause` };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/resume',
    need: 'cook',
    ok: 202,
    setup: async (h) => {
      const s = running(h);
      await h.clock.advanceAsync(2000);
      h.hub.sessions.pause(s.id);
      return { path: `/svc/v1/sessions/${s.id}/resume` };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/sessions/:id/abort',
    need: 'cook',
    ok: 202,
    setup: (h) => ({ path: `/svc/v1/sessions/${running(h).id}/abort`, body: { reason: 'matrix' } }),
  },
  { method: 'GET', route: '/svc/v1/tasks', need: 'read', ok: 200 },
  { method: 'GET', route: '/svc/v1/tasks/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/tasks/${confirmTask(h)}` }) },
  {
    method: 'POST',
    route: '/svc/v1/tasks/:id/respond',
    need: 'cook',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/tasks/${confirmTask(h)}/respond`, body: { answer: 'yes' } }),
  },
  { method: 'GET', route: '/svc/v1/inventory', need: 'read', ok: 200 },
  { method: 'PATCH', route: '/svc/v1/inventory', need: 'inventory', ok: 200, body: { upsert: [{ name: 'Eggs', quantity: 6, unit: '1' }] } },
  { method: 'POST', route: '/svc/v1/orders', need: 'order:create', ok: 201, body: { lines: [{ item: 'oil', quantity: 1, unit: 'L' }] } },
  { method: 'GET', route: '/svc/v1/orders', need: 'read', ok: 200 },
  {
    method: 'GET',
    route: '/svc/v1/orders/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({
      path: `/svc/v1/orders/${h.hub.kitchen.createOrder([{ item: 'salt', quantity: 1, unit: 'kg' }], undefined, agent).id}`,
    }),
  },
  {
    method: 'POST',
    route: '/svc/v1/orders/:id/approve',
    need: ['order:create', 'admin'],
    ok: 200,
    setup: (h) => ({
      path: `/svc/v1/orders/${h.hub.kitchen.createOrder([{ item: 'salt', quantity: 1, unit: 'kg' }], undefined, agent).id}/approve`,
    }),
  },
  {
    method: 'POST',
    route: '/svc/v1/notify',
    need: 'notify',
    ok: 202,
    body: { audience: 'household', urgency: 'low', message: { en: 'hello' } },
  },
  { method: 'GET', route: '/svc/v1/notifications', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/notifications/:id/ack',
    need: ['read', 'notify', 'admin'],
    ok: 200,
    setup: (h) => ({
      path: `/svc/v1/notifications/${h.hub.notifications.send({ audience: 'household', urgency: 'info', message: { en: 'hi' } }, matrixSender()).id}/ack`,
    }),
  },
  { method: 'GET', route: '/svc/v1/mode', need: 'read', ok: 200 },
  { method: 'PUT', route: '/svc/v1/mode', need: 'admin', ok: 200, body: { mode: 'eco' } },
  { method: 'POST', route: '/svc/v1/plan-preview', need: 'read', ok: 200, body: { recipeId: 'example-shakshuka', scale: 1.5 } },
  { method: 'GET', route: '/svc/v1/household', need: 'read', ok: 200 },
  {
    method: 'POST',
    route: '/svc/v1/advise/:intent',
    need: 'read',
    ok: 200,
    setup: () => ({ path: '/svc/v1/advise/feed', body: { query: { people: 4 } } }),
  },
  {
    method: 'POST',
    route: '/svc/v1/advise/:intent/apply',
    need: 'cook',
    ok: 201,
    setup: (h) => ({ path: '/svc/v1/advise/feed/apply', body: adviceAnswer(h) }),
  },
  { method: 'POST', route: '/svc/v1/ask', need: 'token', ok: 200, body: { text: 'how do I feed 6 people?' } },
  { method: 'GET', route: '/svc/v1/offers', need: 'token', ok: 200 },
  { method: 'POST', route: '/svc/v1/quotes', need: 'order:create', ok: 201, body: quoteBody },
  { method: 'GET', route: '/svc/v1/quotes/:id', need: 'read', ok: 200, setup: (h) => ({ path: `/svc/v1/quotes/${quoted(h).id}` }) },
  {
    method: 'POST',
    route: '/svc/v1/quotes/:id/order',
    need: 'order:create',
    ok: 201,
    setup: (h) => {
      const r = quoted(h);
      return { path: `/svc/v1/quotes/${r.id}/order`, body: { quoteId: r.quotes[0]?.id ?? 'qt-00000000-0000-0000-0000-000000000000' } };
    },
  },
  {
    method: 'POST',
    route: '/svc/v1/quotes/:id/approve',
    need: ['order:create', 'admin'],
    ok: 200,
    setup: (h) => {
      const r = quoted(h);
      return { path: `/svc/v1/quotes/${r.id}/approve`, body: { quoteId: r.quotes[0]?.id ?? 'qt-00000000-0000-0000-0000-000000000000' } };
    },
  },
  { method: 'PUT', route: '/svc/v1/household', need: 'admin', ok: 200, body: { excludeAllergens: [], diets: [] } },
  {
    method: 'POST',
    route: '/svc/v1/team-plans',
    need: 'cook',
    ok: 201,
    setup: (h) => ({ body: { sessionId: planned(h).id } }),
  },
  {
    method: 'GET',
    route: '/svc/v1/team-plans/:id',
    need: 'read',
    ok: 200,
    setup: (h) => ({ path: `/svc/v1/team-plans/${h.hub.team.propose({ sessionId: planned(h).id }, human).plan.id}` }),
  },
];
