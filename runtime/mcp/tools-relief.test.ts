/**
 * The relief tools over MCP on a real socket (the SDK client): relief_pledge posts the reference pledges,
 * relief_allocate allocates and is refused as REST refuses (relief-mismatch for an allergen, over-allocation),
 * relief_needs reads the open needs; on a hub that is not a coordinator each answers not-coordinator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { validate } from '../../schemas/index.js';
import { packageRoot } from '../config/paths.js';
import { startHub, type TestHub } from '../hub/test-helpers.js';

const REF = join(packageRoot(), '../shared/reference/examples/relief');
const ref = (f: string) => JSON.parse(readFileSync(join(REF, `${f}.json`), 'utf8')) as Record<string, unknown>;

async function mcp(t: Test, h: TestHub, scopes: string[]): Promise<Client> {
  const client = new Client({ name: 'relief-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${h.token(scopes, 'agent')}` } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}

t.test('relief_pledge, relief_allocate and relief_needs on a coordinator hub', async (t) => {
  const h = await startHub({ relief: true });
  t.teardown(() => h.close());
  const c = await mcp(t, h, ['read', 'relief']);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await c.callTool({ name, arguments: args });
    return { isError: r.isError === true, sc: r.structuredContent as Record<string, unknown> };
  };
  h.hub.relief.postNeed(ref('need'), { id: 'tok_x', name: 'x', kind: 'human', scopes: ['relief'] });
  const robot = await call('relief_pledge', ref('pledge-robot'));
  t.notOk(robot.isError, JSON.stringify(robot.sc));
  t.ok(validate.reliefPledgeRecord(robot.sc).valid, 'a PledgeRecord');
  t.notOk((await call('relief_pledge', ref('pledge-surplus'))).isError);
  const nuts = {
    svc: '0.2.0',
    id: 'pl-nuts',
    from: 'did:web:x.example',
    kind: 'food',
    items: [{ name: 'peanut sauce', qty: { value: 3, unit: 'kg' } }],
    available: ref('pledge-robot').available,
  };
  t.notOk((await call('relief_pledge', nuts)).isError);

  const refused = await call('relief_allocate', {
    svc: '0.2.0',
    need: 'need-2026-11-03-shubra',
    assignments: [{ pledge: 'pl-nuts' }, { pledge: 'pl-882' }],
  });
  t.equal(refused.isError, true);
  t.match(refused.sc, { error: 'relief-mismatch', reason: 'allergen', allergens: ['peanuts'], pledge: 'pl-nuts' });
  const over = await call('relief_allocate', {
    svc: '0.2.0',
    need: 'need-2026-11-03-shubra',
    assignments: [{ pledge: 'pl-882', meals: 721 }],
  });
  t.match(over.sc, { error: 'over-allocation', pledge: 'pl-882' });
  t.match(
    (await call('relief_needs', {})).sc,
    { items: [{ id: 'need-2026-11-03-shubra', remaining: { meals: 650 } }] },
    'nothing allocated',
  );

  const done = await call('relief_allocate', ref('allocation'));
  t.notOk(done.isError, JSON.stringify(done.sc));
  t.ok(validate.reliefAllocationRecord(done.sc).valid, 'an AllocationRecord');
  t.match(done.sc, { id: 'alloc-77', coverage: { meals: 650, pct: 100 } });
  t.same((await call('relief_needs', {})).sc.items, [], 'no open need left');
  t.match((await call('relief_needs', { status: 'fulfilled' })).sc, { items: [{ id: 'need-2026-11-03-shubra', status: 'fulfilled' }] });
  t.match((await call('relief_needs', { id: 'need-2026-11-03-shubra' })).sc, { remaining: { meals: 0, people: 0 } });
  const reader = await mcp(t, h, ['read']);
  const denied = await reader.callTool({ name: 'relief_pledge', arguments: ref('pledge-robot') });
  t.match(denied.structuredContent, { error: 'forbidden', requiredScope: 'relief' });
});

t.test('relief_pledge {withdraw} and relief_allocate {cancel} and {closeNeed}: the end of the records over MCP', async (t) => {
  const h = await startHub({ relief: true });
  t.teardown(() => h.close());
  const c = await mcp(t, h, ['read', 'relief']);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await c.callTool({ name, arguments: args });
    return { isError: r.isError === true, sc: r.structuredContent as Record<string, unknown> };
  };
  h.hub.relief.postNeed(ref('need'), { id: 'tok_x', name: 'x', kind: 'human', scopes: ['relief'] });
  for (const f of ['pledge-robot', 'pledge-surplus']) t.notOk((await call('relief_pledge', ref(f))).isError, f);
  t.notOk((await call('relief_allocate', ref('allocation'))).isError);

  const live = await call('relief_pledge', { withdraw: 'pl-882' });
  t.match(live, { isError: true, sc: { error: 'conflict', allocations: [{ id: 'alloc-77', state: 'allocated' }] } }, 'live allocations');
  const mixed = await call('relief_allocate', { cancel: 'alloc-77', need: 'need-2026-11-03-shubra' });
  t.match(mixed, { isError: true, sc: { error: 'validation-failed' } }, 'a cancel is not also an allocation');
  t.match(await call('relief_pledge', { ...ref('pledge-robot'), cascade: true }), { sc: { error: 'validation-failed' } });

  const cancelled = await call('relief_allocate', { cancel: 'alloc-77', reason: 'truck broke down' });
  t.notOk(cancelled.isError, JSON.stringify(cancelled.sc));
  t.ok(validate.reliefAllocationRecord(cancelled.sc).valid, 'an AllocationRecord');
  t.match(cancelled.sc, { state: 'cancelled', cancelled: { reason: 'truck broke down', by: { kind: 'agent' } } });
  t.match((await call('relief_needs', { id: 'need-2026-11-03-shubra' })).sc, { status: 'open', remaining: { meals: 650 } });

  const withdrawn = await call('relief_pledge', { withdraw: 'pl-882', reason: 'robot recalled' });
  t.notOk(withdrawn.isError, JSON.stringify(withdrawn.sc));
  t.ok(validate.reliefPledgeRecord(withdrawn.sc).valid, 'a PledgeRecord');
  t.match(withdrawn.sc, { id: 'pl-882', status: 'withdrawn', remaining: { meals: 720 } });

  const closed = await call('relief_allocate', { closeNeed: 'need-2026-11-03-shubra', reason: 'covered by another program' });
  t.notOk(closed.isError, JSON.stringify(closed.sc));
  t.match(closed.sc, { status: 'closed', closed: { reason: 'covered by another program' } });
  t.same((await call('relief_needs', {})).sc.items, [], 'no open need');
  const reader = await mcp(t, h, ['read']);
  const denied = await reader.callTool({ name: 'relief_allocate', arguments: { cancel: 'alloc-77' } });
  t.match(denied.structuredContent, { error: 'forbidden', requiredScope: 'relief' });
});

t.test('on a hub that is not a coordinator the relief tools answer not-coordinator', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const c = await mcp(t, h, ['read', 'relief']);
  for (const [name, args] of [
    ['relief_needs', {}],
    ['relief_pledge', ref('pledge-robot')],
    ['relief_allocate', ref('allocation')],
  ] as const) {
    const r = await c.callTool({ name, arguments: args });
    t.equal(r.isError, true, name);
    t.match(r.structuredContent, { error: 'not-coordinator' }, name);
  }
});
