import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { BusEvents } from '../../events/bus.js';
import { FRY_RECIPE, startHub, type TestHub } from '../test-helpers.js';
import type { Session, Task } from '../types.js';

const SERVE_AT = '2026-06-01T19:00:00+02:00';
const create = (h: TestHub, token: string, recipes = [{ recipeId: FRY_RECIPE, servings: 2 }]) =>
  h.call('POST', '/svc/v1/sessions', { token, body: { recipes, serveAt: SERVE_AT, mode: 'assisted' } });

async function confirmed(h: TestHub, person: string, recipes?: { recipeId: string; servings: number }[]): Promise<Session> {
  const r = await create(h, person, recipes);
  const s = r.body as unknown as Session;
  const c = await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, {
    token: person,
    body: { acknowledgedRules: s.confirmation.requiredRules },
  });
  if (c.status !== 200) throw new Error(`confirm answered ${c.status}`);
  return c.body as unknown as Session;
}

const final = (h: TestHub, id: string) => () => ['completed', 'failed', 'aborted'].includes(h.hub.sessions.get(id).state);

t.test('create: planned with the rules a person must acknowledge; bad input is a problem document', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const cook = h.token(['cook', 'read']);
  const r = await create(h, cook);
  t.equal(r.status, 201);
  t.match(r.headers.get('location'), /^\/svc\/v1\/sessions\/ses-/);
  const s = r.body as unknown as Session;
  t.equal(s.state, 'planned');
  t.equal(s.serveAt, SERVE_AT);
  t.same(
    s.recipes.map((x) => x.recipeId),
    [FRY_RECIPE],
  );
  t.match(s.recipes[0]?.hash, /^sha256:[0-9a-f]{64}$/);
  t.same(s.confirmation.requiredRules, ['allergens/cereals_gluten', 'allergens/wheat', 'supervision/deep_fry']);
  const got = await h.call('GET', `/svc/v1/sessions/${s.id}`, { token: cook });
  t.same(got.body, r.body);

  const unknown = await create(h, cook, [{ recipeId: 'no-such-recipe', servings: 1 }]);
  t.equal(unknown.status, 404);
  t.match(unknown.body.type, /\/errors\/unknown-recipe$/);
  const bad = await h.call('POST', '/svc/v1/sessions', { token: cook, body: { recipes: [], serveAt: 'tomorrow', mode: 'assisted' } });
  t.equal(bad.status, 422);
  t.equal(bad.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  const noKey = await h.call('POST', '/svc/v1/sessions', {
    token: cook,
    key: false,
    body: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: SERVE_AT, mode: 'assisted' },
  });
  t.equal(noKey.status, 400);
  t.match(noKey.body.type, /idempotency-key-missing$/);
  const missing = await h.call('GET', '/svc/v1/sessions/ses-nope', { token: cook });
  t.equal(missing.status, 404);
});

t.test('an agent only prepares a confirmation; a person completes it through the task', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const agent = h.token(['cook', 'read'], 'agent');
  const person = h.token(['cook', 'read'], 'human');
  const s = (await create(h, agent)).body as unknown as Session;
  const partial = await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, {
    token: agent,
    body: { acknowledgedRules: ['supervision/deep_fry'] },
  });
  t.equal(partial.status, 403, 'every required rule must be acknowledged');
  t.match(partial.body.type, /policy-deny$/);
  t.same(partial.body.missingRules, ['allergens/cereals_gluten', 'allergens/wheat']);

  const prep = await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, {
    token: agent,
    body: { acknowledgedRules: s.confirmation.requiredRules },
  });
  t.equal(prep.status, 202);
  t.equal(prep.body.state, 'awaiting_confirmation');
  const task = prep.body.task as Task;
  t.equal(task.state, 'input_required');
  t.same(task.assignee, { id: 'household', kind: 'human' });
  t.match(task.message.en, /person must confirm/);
  const start = await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: agent });
  t.equal(start.status, 409, 'start is refused while unconfirmed');

  const agentAnswer = await h.call('POST', `/svc/v1/tasks/${task.id}/respond`, { token: agent, body: { answer: 'yes' } });
  t.equal(agentAnswer.status, 403);
  t.match(agentAnswer.body.type, /not-human-approver$/);
  const list = await h.call('GET', `/svc/v1/tasks?session=${s.id}`, { token: agent });
  t.same(
    (list.body.items as Task[]).map((x) => x.state),
    ['input_required'],
  );

  const yes = await h.call('POST', `/svc/v1/tasks/${task.id}/respond`, { token: person, body: { answer: 'yes' } });
  t.equal(yes.status, 200);
  t.equal(yes.body.state, 'completed');
  const after = h.hub.sessions.get(s.id);
  t.equal(after.state, 'planned');
  t.equal(after.confirmation.confirmedBy?.kind, 'human');
  t.equal(after.confirmation.preparedBy?.kind, 'agent');
  const again = await h.call('POST', `/svc/v1/tasks/${task.id}/respond`, { token: person, body: { answer: 'yes' } });
  t.equal(again.status, 409, 'an answered task takes no more answers');

  // A person may also decline what an agent prepared.
  const s2 = (await create(h, agent)).body as unknown as Session;
  const prep2 = await h.call('POST', `/svc/v1/sessions/${s2.id}/confirm`, {
    token: agent,
    body: { acknowledgedRules: s2.confirmation.requiredRules },
  });
  const no = await h.call('POST', `/svc/v1/tasks/${(prep2.body.task as Task).id}/respond`, { token: person, body: { answer: 'no' } });
  t.equal(no.body.state, 'rejected');
  t.equal(h.hub.sessions.get(s2.id).state, 'planned');
  t.notOk(h.hub.sessions.get(s2.id).confirmation.confirmedBy);
});

t.test('start needs a sensed person and an unrecalled revision; then the session cooks to completion', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read']);
  const events: { name: string; state: string }[] = [];
  h.app.ctx.bus.on('session.updated', (e: BusEvents['session.updated']) => events.push({ name: 'session', state: e.state }));
  const s = await confirmed(h, person);
  const nobody = await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: person });
  t.equal(nobody.status, 409);
  t.match(nobody.body.type, /presence-required$/);
  t.equal(h.hub.sessions.get(s.id).state, 'planned');

  await h.presence(true);
  const ok = await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: person });
  t.equal(ok.status, 202);
  t.equal(ok.body.state, 'running');
  t.ok(await h.runUntil(final(h, s.id)), 'the session ends');
  const done = h.hub.sessions.get(s.id);
  t.equal(done.state, 'completed');
  t.same(done.recipes[0]?.execution, { state: 'completed', outcome: 'served' });
  const log = h.app.ctx.executor.executionLog(done.recipes[0]?.executionId ?? '');
  t.equal(typeof log === 'object' && log.outcome, 'served', 'the executor cooked it');
  t.same(
    events.map((e) => e.state).filter((x, i, a) => a[i - 1] !== x),
    ['planned', 'running', 'completed'],
  );

  const r = await confirmed(h, person);
  h.app.ctx.executor.recalls.add({ id: 'recall-1', issuedAt: '2026-05-01T00:00:00Z', action: 'block', targets: [{ ref: FRY_RECIPE }] });
  const recalled = await h.call('POST', `/svc/v1/sessions/${r.id}/start`, { token: person });
  t.equal(recalled.status, 409);
  t.match(recalled.body.type, /\/errors\/recalled$/);
});

t.test('two recipes cook one after another', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read']);
  const s = await confirmed(h, person, [
    { recipeId: FRY_RECIPE, servings: 2 },
    { recipeId: FRY_RECIPE, servings: 4 },
  ]);
  await h.presence(true);
  t.equal((await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: person })).status, 202);
  t.ok(await h.runUntil(final(h, s.id)));
  const done = h.hub.sessions.get(s.id);
  t.equal(done.state, 'completed');
  const ids = done.recipes.map((r) => r.executionId);
  t.equal(new Set(ids).size, 2, 'one execution per recipe');
  t.same(
    done.recipes.map((r) => r.execution?.outcome),
    ['served', 'served'],
  );
});

t.test('pause, resume and abort drive the execution', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read']);
  await h.presence(true);
  const s = await confirmed(h, person);
  await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: person });
  await h.clock.advanceAsync(120_000);
  const exec = h.hub.sessions.get(s.id).recipes[0]?.executionId ?? '';
  const paused = await h.call('POST', `/svc/v1/sessions/${s.id}/pause`, { token: person });
  t.equal(paused.status, 202);
  t.equal(paused.body.state, 'paused');
  t.equal(h.app.ctx.executor.status(exec)?.state, 'paused');
  t.equal(h.app.ctx.rig.heaters.get('fryer')?.power, 0, 'heat is off while paused');
  t.equal((await h.call('POST', `/svc/v1/sessions/${s.id}/pause`, { token: person })).status, 409);
  const resumed = await h.call('POST', `/svc/v1/sessions/${s.id}/resume`, { token: person });
  t.equal(resumed.body.state, 'running');
  t.equal(h.app.ctx.executor.status(exec)?.state, 'running');
  const aborted = await h.call('POST', `/svc/v1/sessions/${s.id}/abort`, { token: person, body: { reason: 'guests cancelled' } });
  t.equal(aborted.status, 202);
  t.equal(aborted.body.state, 'aborted');
  t.equal((aborted.body.abort as { reason: string }).reason, 'guests cancelled');
  t.equal(h.app.ctx.executor.status(exec)?.state, 'stopped');
  t.equal(h.app.ctx.rig.heaters.get('fryer')?.power, 0);
  t.equal((await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: person })).status, 409, 'an aborted session does not start');
});

t.test('a cooking check becomes an input_required task; answering it resumes the execution', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read']);
  await h.presence(true);
  const s = await confirmed(h, person);
  await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: person });
  await h.clock.advanceAsync(60_000);
  await h.presence(false);
  const check = () => h.hub.sessions.tasks.open(s.id).find((x) => x.kind === 'cooking_check');
  t.ok(await h.runUntil(() => check() !== undefined, 600_000, 1000), 'the hub asks a person');
  const task = check() as Task;
  t.equal(task.state, 'input_required');
  t.match(task.message.en, /needs a person present/);
  t.equal(h.hub.sessions.get(s.id).state, 'running');
  const early = await h.call('POST', `/svc/v1/tasks/${task.id}/respond`, { token: person, body: { answer: 'yes' } });
  t.equal(early.status, 409, 'nobody is at the appliance yet');
  t.match(early.body.type, /presence-required$/);
  await h.presence(true);
  const yes = await h.call('POST', `/svc/v1/tasks/${task.id}/respond`, { token: person, body: { answer: 'yes' } });
  t.equal(yes.status, 200);
  t.equal(yes.body.state, 'completed');
  t.ok(await h.runUntil(final(h, s.id)));
  t.equal(h.hub.sessions.get(s.id).state, 'completed');
});

t.test('replayed POSTs, task events, and sessions a previous process left running', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-hub-restart-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const h = await startHub({ dataDir });
  const person = h.token(['cook', 'read']);
  const agent = h.token(['cook', 'read'], 'agent');
  const body = { recipes: [{ recipeId: FRY_RECIPE }], serveAt: SERVE_AT, mode: 'assisted' };
  const first = await h.call('POST', '/svc/v1/sessions', { token: person, key: 'create-session-0001', body });
  const again = await h.call('POST', '/svc/v1/sessions', { token: person, key: 'create-session-0001', body });
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.body.id, first.body.id, 'the same key creates one session');
  const other = await h.call('POST', '/svc/v1/sessions', { token: person, key: 'create-session-0001', body: { ...body, mode: 'guided' } });
  t.equal(other.status, 422, 'the same key with another body is refused');

  const taskEvents: BusEvents['task.updated'][] = [];
  h.app.ctx.bus.on('task.updated', (e) => taskEvents.push(e));
  const s = first.body as unknown as Session;
  await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, { token: agent, body: { acknowledgedRules: s.confirmation.requiredRules } });
  t.same(
    taskEvents.map((e) => [e.sessionId, e.state]),
    [[s.id, 'input_required']],
  );
  await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, { token: person, body: { acknowledgedRules: s.confirmation.requiredRules } });
  t.same(
    taskEvents.map((e) => e.state),
    ['input_required', 'completed'],
  );

  // A crash leaves a session marked running; the next start aborts it (nothing resumes by itself).
  const stale = h.hub.sessions.get(s.id);
  stale.state = 'running';
  h.hub.sessions.sessions.update(stale, Date.now());
  await h.close();
  const h2 = await startHub({ dataDir });
  t.teardown(() => h2.close());
  const after = h2.hub.sessions.get(s.id);
  t.equal(after.state, 'aborted');
  t.match(after.abort?.reason, /hub restarted/);
});
