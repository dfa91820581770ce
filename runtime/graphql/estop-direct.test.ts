/**
 * An emergency stop over GraphQL never waits on the lazy load of GraphQL: on a hub where GraphQL was never used,
 * the first request, an `emergencyStop` mutation, cuts heat on the simulated rig and answers without graphql-js'
 * engine (its validation and execution) being loaded at all; its answer is the one GraphQL gives for the same
 * document once loaded. Documents that
 * are not a plain emergency stop go to GraphQL as before.
 *
 * @own-process: it checks what this process has loaded, so nothing else may run in it first.
 */
import { createRequire } from 'node:module';
import t from 'tap';
import { startFryCook, startHub, type TestHub } from '../hub/test-helpers.js';
import type { Session } from '../hub/types.js';
import { STOP_TYPES } from './estop-direct.js';
import { HUB_SCHEMA } from './schema.js';

/** POST one document (test-helpers.ts' gql, without its graphql-ws client: that imports graphql-js whole). */
async function gql(h: TestHub, query: string, opts: { token: string; variables?: Record<string, unknown> }) {
  const res = await fetch(`${h.url}/svc/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.token}` },
    body: JSON.stringify({ query, ...(opts.variables ? { variables: opts.variables } : {}) }),
  });
  const body = (await res.json()) as { data?: Record<string, unknown>; errors?: { message: string }[] };
  return { status: res.status, data: body.data, errors: body.errors };
}

/** graphql-js' execution (what serves every other document; the direct path imports only its parser). */
const engineLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/node_modules/graphql/execution/'));
/** mercurius, which serves only subscriptions now (HTTP goes straight through graphql-js). */
const mercuriusLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/node_modules/mercurius/'));

/** A cook under way, the fryer heating. */
const cooking = (h: TestHub): Promise<Session> => startFryCook(h, h.token(['cook', 'read']));

const STOP = `mutation Stop($why: String) {
  stop: emergencyStop(reason: $why) { __typename accepted action reason warnings trip
    safety { latched hint trip heaters { id power __typename } } }
}`;

t.test('the first-ever GraphQL request, an emergencyStop, cuts heat without loading the GraphQL engine', async (t) => {
  t.notOk(engineLoaded(), 'the GraphQL engine is not loaded in this process yet');
  const h = await startHub();
  t.teardown(() => h.close());
  const s = await cooking(h);
  t.ok((h.app.ctx.rig.heaters.get('fryer')?.power ?? 0) > 0, 'the fryer is heating');
  const events: unknown[] = [];
  h.app.ctx.bus.on('safety', (e) => events.push(e));

  const agent = h.token(['notify'], 'agent', 'stop button agent');
  const stop = await gql(h, STOP, { token: agent, variables: { why: 'smoke from the fryer' } });
  t.equal(stop.status, 200);
  t.notOk(stop.errors);
  for (const heater of h.app.ctx.rig.heaters.values()) t.equal(heater.power, 0, `${heater.id} is off on the rig`);
  t.notOk(engineLoaded(), 'the stop did not wait for (or start) loading the GraphQL engine');
  const direct = stop.data?.stop as Record<string, unknown>;
  t.match(direct, {
    __typename: 'EmergencyStopResult',
    accepted: true,
    action: 'heat_off_all',
    reason: 'smoke from the fryer',
    warnings: null,
    safety: { latched: true, heaters: [{ id: 'fryer', power: 0, __typename: 'HeaterPower' }] },
  });
  t.match(events, [{ kind: 'estop', action: 'heat_off_all' }], 'the supervisor announced the stop');
  t.match((events[0] as { trip: { statedReason: string; source: string } }).trip, {
    statedReason: 'smoke from the fryer',
    source: 'agent stop button agent',
  });
  await h.clock.advanceAsync(30_000);
  t.equal(h.app.ctx.rig.heaters.get('fryer')?.power, 0, 'heat stays off while latched');
  t.equal(h.hub.sessions.get(s.id).state, 'aborted');

  // Once GraphQL is loaded, the same document answers the same (the stop is latched: same trip, same state).
  const mode = await gql(h, '{ mode { mode } }', { token: agent });
  t.equal(mode.status, 200);
  t.ok(engineLoaded(), 'a query loads the GraphQL engine');
  t.notOk(mercuriusLoaded(), 'GraphQL over HTTP does not load mercurius');
  const again = await gql(h, STOP, { token: agent, variables: { why: 'smoke from the fryer' } });
  t.same(again.data?.stop, direct, 'GraphQL answers the same shape and values');
});

t.test('a document that is not a plain emergency stop goes to GraphQL as before', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const agent = h.token(['notify'], 'agent');
  const unknownField = await gql(h, 'mutation { emergencyStop { accepted nope } }', { token: agent });
  t.match(unknownField.errors?.[0]?.message, /nope/, 'an unknown field is GraphQL’s validation error');
  t.equal(h.app.ctx.supervisor.status().latched, false, 'an invalid document stops nothing (as GraphQL never executes it)');
  const badVar = await gql(h, 'mutation($r: Int) { emergencyStop(reason: $r) { accepted } }', { token: agent, variables: { r: 3 } });
  t.ok(badVar.errors, 'a variable of the wrong type is GraphQL’s error');
  t.equal(h.app.ctx.supervisor.status().latched, false);
  const both = await gql(h, 'mutation { emergencyStop(reason: "x") { accepted } }', { token: agent });
  t.same(both.data, { emergencyStop: { accepted: true } }, 'once loaded, GraphQL runs the stop');
  t.equal(h.app.ctx.supervisor.status().latched, true);
});

t.test('the direct path knows the result types as schema.ts declares them', async (t) => {
  for (const [type, fields] of Object.entries(STOP_TYPES)) {
    const m = new RegExp(`type ${type} \\{([^}]*)\\}`).exec(HUB_SCHEMA);
    t.ok(m, `${type} is in the schema`);
    const declared = [...(m?.[1] ?? '').matchAll(/(\w+)(?:\([^)]*\))?\s*:\s*\[?(\w+)/g)].map(([, f, ty]) => [f, ty]);
    t.same(
      declared.map(([f]) => f),
      Object.keys(fields),
      `${type}: the same fields`,
    );
    for (const [f, ty] of declared) if (ty && ty in STOP_TYPES) t.equal(fields[f as string], ty, `${type}.${f} is a ${ty}`);
  }
});
