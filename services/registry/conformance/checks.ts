/** The registry conformance checks, in order. Each one names the rule of the spec it exercises. */
import { verifyDocument } from '../../../core/signature.js';
import { type Check, expect, expectProblem, expectStatus, expectValidationResult, type Run } from './run.js';

const is4xx = (s: number) => s >= 400 && s < 500;
const versionsOf = (list: { name: string; version: string }[], name: string) => list.filter((e) => e.name === name).map((e) => e.version);
const domainOf = (ns: string) => ns.split('.').reverse().join('.');

async function lookup(r: Run): Promise<Record<string, { status: string }>> {
  const [ns, short] = r.name.split('/');
  const res = await r.http.send('GET', `/v1/registry/entries/${ns}/${short}`);
  expectStatus(res, 200, 'lookup');
  expect(Array.isArray(res.body), 'lookup must answer an array');
  return Object.fromEntries(res.body.map((e: { version: string; status: string }) => [e.version, e]));
}

async function search(r: Run, query: string): Promise<{ name: string; version: string; status: string }[]> {
  const res = await r.http.send('GET', `/v1/registry/entries?${query}`);
  expectStatus(res, 200, 'search');
  expect(Array.isArray(res.body), 'search must answer an array');
  return res.body;
}

function patch(r: Run, body: unknown, opts: { token?: string | null; key?: string | null } = {}) {
  const [ns, short] = r.name.split('/');
  return r.http.send('PATCH', `/v1/registry/entries/${ns}/${short}/status`, {
    body,
    ...(opts.token === null ? {} : { token: opts.token ?? r.opts.token }),
    key: opts.key === undefined ? r.key() : opts.key,
  });
}

function publish(r: Run, body: unknown, opts: { token?: string | null; key?: string | null } = {}) {
  return r.http.send('POST', '/v1/registry/publish', {
    body,
    ...(opts.token === null ? {} : { token: opts.token ?? r.opts.token }),
    key: opts.key === undefined ? r.key() : opts.key,
  });
}

export const checks: Check[] = [
  {
    name: 'GET /v1/registry.json is a registry document {svc, generatedAt, entries}',
    run: async (r) => {
      const res = await r.http.send('GET', '/v1/registry.json');
      expectStatus(res, 200);
      expect(typeof res.body?.svc === 'string', 'svc must be a string');
      expect(
        typeof res.body?.generatedAt === 'string' && !Number.isNaN(Date.parse(res.body.generatedAt)),
        'generatedAt must be a date-time',
      );
      expect(Array.isArray(res.body?.entries), 'entries must be an array');
    },
  },
  {
    name: 'GET /v1/directory.json is a directory document {svc, generatedAt, entries}',
    run: async (r) => {
      const res = await r.http.send('GET', '/v1/directory.json');
      expectStatus(res, 200);
      expect(
        typeof res.body?.svc === 'string' && typeof res.body?.generatedAt === 'string' && Array.isArray(res.body?.entries),
        'bad directory shape',
      );
    },
  },
  { name: 'GET /v1/registry/entries answers an array', run: async (r) => void (await search(r, '')) },
  {
    name: 'search text q longer than 200 characters is refused with a problem',
    run: async (r) => {
      expectProblem(await r.http.send('GET', `/v1/registry/entries?q=${'a'.repeat(201)}`), is4xx);
      await search(r, `q=${'a'.repeat(200)}`);
    },
  },
  {
    name: 'an unknown entry is 404 with a problem document',
    run: async (r) => expectProblem(await r.http.send('GET', `/v1/registry/entries/${r.opts.namespace}/conformance-missing-${r.id}`), 404),
  },
  {
    name: 'validate: a good entry is valid',
    run: async (r) => {
      const res = await r.http.send('POST', '/v1/registry/validate', { body: r.entry('1.0.0'), token: r.opts.token });
      expectStatus(res, 200);
      expectValidationResult(res, true);
    },
  },
  {
    name: 'validate: name, version, hash and schema issues carry their codes and JSON-pointer paths',
    run: async (r) => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ name: `${r.opts.namespace.toUpperCase()}/X` }, 'name', '/name'],
        [{ name: 'nodots/x' }, 'name', '/name'],
        [{ version: '^1.0.0' }, 'version', '/version'],
        [{ version: 'latest' }, 'version', '/version'],
        [{ sha256: 'not-a-hash' }, 'hash', '/sha256'],
        [{ unknownMember: true }, 'schema', '/unknownMember'],
      ];
      for (const [extra, code, path] of cases) {
        const res = await r.http.send('POST', '/v1/registry/validate', { body: r.entry('1.0.0', extra), token: r.opts.token });
        expectStatus(res, 200, `${code} case`);
        expectValidationResult(res, false, code, path);
      }
      const noHash = r.entry('1.0.0');
      delete noHash.sha256;
      expectValidationResult(
        await r.http.send('POST', '/v1/registry/validate', { body: noHash, token: r.opts.token }),
        false,
        'hash',
        '/sha256',
      );
    },
  },
  { name: 'publish without a token is 401', run: async (r) => expectProblem(await publish(r, r.entry('1.0.0'), { token: null }), 401) },
  {
    name: 'publish with an unknown token is 401',
    run: async (r) => expectProblem(await publish(r, r.entry('1.0.0'), { token: `bogus-${r.id}` }), 401),
  },
  {
    name: 'publish without Idempotency-Key is 400',
    run: async (r) => expectProblem(await publish(r, r.entry('1.0.0'), { key: null }), 400),
  },
  {
    name: 'an Idempotency-Key of 7 characters is 400',
    run: async (r) => expectProblem(await publish(r, r.entry('1.0.0'), { key: 'abcdefg' }), 400),
  },
  {
    name: 'an Idempotency-Key of 129 characters is 400',
    run: async (r) => expectProblem(await publish(r, r.entry('1.0.0'), { key: 'k'.repeat(129) }), 400),
  },
  {
    name: 'malformed JSON is 400',
    run: async (r) =>
      expectProblem(await r.http.send('POST', '/v1/registry/publish', { raw: '{"kind":', token: r.opts.token, key: r.key() }), 400),
  },
  {
    name: 'an oversized body is 413',
    run: async (r) => expectProblem(await publish(r, r.entry('1.0.0', { 'x-padding': 'x'.repeat(2 * 1024 * 1024) })), 413),
  },
  {
    name: 'publish is 201 with the stored entry, status active',
    run: async (r) => {
      r.state.replayKey = r.key();
      const res = await publish(r, r.entry('1.0.0'), { key: r.state.replayKey as string | undefined });
      expectStatus(res, 201);
      expect(res.body?.name === r.name && res.body?.version === '1.0.0', 'the 201 body must be the entry');
      expect(res.body?.status === 'active', `the initial status must be active, got ${res.body?.status}`);
      r.state.first = res.body;
    },
  },
  {
    name: 'the same Idempotency-Key and body replays the first answer',
    run: async (r) => {
      expect(r.state.replayKey as string | undefined, 'needs the publish check');
      const res = await publish(r, r.entry('1.0.0'), { key: r.state.replayKey as string | undefined });
      expectStatus(res, 201);
      expect(JSON.stringify(res.body) === JSON.stringify(r.state.first), 'the replayed body differs from the first answer');
    },
  },
  {
    name: 'the same Idempotency-Key with another body is 422',
    run: async (r) => expectProblem(await publish(r, r.entry('1.0.1'), { key: (r.state.replayKey as string | undefined) ?? r.key() }), 422),
  },
  {
    name: 'publishing an existing name and version is 409, not a ValidationResult',
    run: async (r) => {
      const res = await publish(r, r.entry('1.0.0'));
      expectStatus(res, 409);
      expect(!(typeof res.body === 'object' && res.body !== null && 'valid' in res.body), 'a 409 body is not a ValidationResult');
    },
  },
  {
    name: 'publishing outside the token namespaces is 422 namespace_unproven',
    run: async (r) => {
      const res = await publish(r, { ...r.entry('1.0.0'), name: `org.conformance-unproven-${r.id}/x` });
      expectStatus(res, 422);
      expectValidationResult(res, false, 'namespace_unproven');
    },
  },
  {
    name: 'publishing an invalid entry is 422 with a ValidationResult',
    run: async (r) => {
      const res = await publish(r, r.entry('1.x'));
      expectStatus(res, 422);
      expectValidationResult(res, false, 'version', '/version');
    },
  },
  {
    name: 'validate reports a published name and version as duplicate',
    run: async (r) =>
      expectValidationResult(
        await r.http.send('POST', '/v1/registry/validate', { body: r.entry('1.0.0'), token: r.opts.token }),
        false,
        'duplicate',
      ),
  },
  {
    name: 'search lists entries newest first and filters by kind and q',
    run: async (r) => {
      expectStatus(await publish(r, r.entry('1.1.0')), 201, 'second publish');
      expect(
        JSON.stringify(versionsOf(await search(r, `q=${encodeURIComponent(r.name)}`), r.name)) === '["1.1.0","1.0.0"]',
        'q: expected 1.1.0 then 1.0.0',
      );
      expect(versionsOf(await search(r, `kind=rule_pack&q=${r.id}`), r.name).length === 2, 'kind=rule_pack should list both');
      expect(versionsOf(await search(r, `kind=device&q=${r.id}`), r.name).length === 0, 'kind=device should list none');
    },
  },
  {
    name: 'GET /v1/registry/entries/{namespace}/{name} lists every version',
    run: async (r) =>
      expect(
        Object.keys(await lookup(r))
          .sort()
          .join() === '1.0.0,1.1.0',
        'expected versions 1.0.0 and 1.1.0',
      ),
  },
  {
    name: 'the registry document lists published entries',
    run: async (r) =>
      expect(versionsOf((await r.http.send('GET', '/v1/registry.json')).body.entries, r.name).length === 2, 'both versions expected'),
  },
  {
    name: 'status change without a token is 401',
    run: async (r) => expectProblem(await patch(r, { status: 'deprecated' }, { token: null }), 401),
  },
  {
    name: 'status change without Idempotency-Key is 400',
    run: async (r) => expectProblem(await patch(r, { status: 'deprecated' }, { key: null }), 400),
  },
  {
    name: 'a status message over 500 characters is refused',
    run: async (r) => expectProblem(await patch(r, { status: 'deprecated', message: 'm'.repeat(501) }), is4xx),
  },
  { name: 'an unknown status is refused', run: async (r) => expectProblem(await patch(r, { status: 'retired' }), is4xx) },
  {
    name: 'deprecating one version leaves the others alone',
    run: async (r) => {
      expectStatus(await patch(r, { status: 'deprecated', version: '1.0.0', message: 'conformance' }), 200);
      const v = await lookup(r);
      expect(v['1.0.0']?.status === 'deprecated' && v['1.1.0']?.status === 'active', `got ${JSON.stringify(v).slice(0, 200)}`);
      expect(versionsOf(await search(r, `status=deprecated&q=${r.id}`), r.name).join() === '1.0.0', 'status=deprecated search');
    },
  },
  {
    name: 'recalling a version enters the recall feed',
    run: async (r) => {
      expectStatus(await patch(r, { status: 'recalled', version: '1.1.0', message: `conformance ${r.id}` }), 200);
      expect((await lookup(r))['1.1.0']?.status === 'recalled', 'status must be recalled');
      const feed = await r.http.send('GET', '/v1/recalls.json');
      expectStatus(feed, 200, 'recall feed');
      const hit = (feed.body?.recalls ?? []).some((x: { entries?: { name?: string; version?: string }[] }) =>
        (x.entries ?? []).some((t) => t.name === r.name && t.version === '1.1.0'),
      );
      expect(hit, 'the recalled version is not in /v1/recalls.json');
      expect(
        feed.body.recalls.every((x: { signature?: unknown }) => typeof x.signature === 'object'),
        'recalls must be signed',
      );
    },
  },
  {
    name: 'every recall in the feed verifies against the registry key (kind Recall)',
    run: async (r) => {
      const feed = (await r.http.send('GET', '/v1/recalls.json')).body;
      expect(Array.isArray(feed?.keys) && feed.keys.length > 0, '/v1/recalls.json must carry the key records');
      for (const rc of feed.recalls) {
        const v = verifyDocument(rc, feed.keys, { kind: 'Recall' });
        expect(v.ok, `recall ${rc.id}: ${v.reason}`);
      }
    },
  },
  {
    name: 'GET /v1/recalls?since= lists later recalls, oldest first (by time or sequence number)',
    run: async (r) => {
      const all = await r.http.send('GET', '/v1/recalls');
      expectStatus(all, 200);
      expect(Array.isArray(all.body) && all.body.length > 0, 'expected an array of Recall documents');
      const newest = all.body.at(-1);
      const hit = newest.entries?.some((e: { name: string }) => e.name === r.name);
      expect(hit, 'the newest recall must be the one this run made');
      const before = new Date(Date.parse(newest.issuedAt) - 1).toISOString();
      const byTime = await r.http.send('GET', `/v1/recalls?since=${encodeURIComponent(before)}`);
      expect(Array.isArray(byTime.body) && byTime.body.at(-1)?.id === newest.id, 'since=<time> must include the newest recall');
      const after = await r.http.send('GET', `/v1/recalls?since=${encodeURIComponent(newest.issuedAt)}`);
      expect(Array.isArray(after.body) && !after.body.some((x: { id: string }) => x.id === newest.id), 'since is strictly after');
      expectProblem(await r.http.send('GET', '/v1/recalls?since=soon'), 400);
    },
  },
  {
    name: 'deleting leaves a tombstone: hidden from search unless include_deleted, kept in lookup',
    run: async (r) => {
      expectStatus(await patch(r, { status: 'deleted', version: '1.0.0' }), 200);
      expect(!versionsOf(await search(r, `q=${r.id}`), r.name).includes('1.0.0'), 'a tombstone must be hidden from search');
      expect(versionsOf(await search(r, `q=${r.id}&include_deleted=true`), r.name).includes('1.0.0'), 'include_deleted=true must show it');
      expect((await lookup(r))['1.0.0']?.status === 'deleted', 'lookup must keep the tombstone');
      const doc = (await r.http.send('GET', '/v1/registry.json')).body;
      expect(
        doc.entries.some(
          (e: { name: string; version: string; status: string }) => e.name === r.name && e.version === '1.0.0' && e.status === 'deleted',
        ),
        'registry.json must keep the tombstone',
      );
    },
  },
  { name: 'a deleted version is never reused (409)', run: async (r) => expectStatus(await publish(r, r.entry('1.0.0')), 409) },
  {
    name: 'a status change without version applies to all versions',
    run: async (r) => {
      expectStatus(await patch(r, { status: 'deprecated' }), 200);
      const v = await lookup(r);
      expect(
        Object.values(v).every((e) => e.status === 'deprecated'),
        `got ${JSON.stringify(v).slice(0, 200)}`,
      );
    },
  },
  {
    name: 'a status change for an unknown version is 404',
    run: async (r) => expectProblem(await patch(r, { status: 'deprecated', version: '9.9.9' }), 404),
  },
  {
    name: 'a namespace challenge names the token and where to put it',
    run: async (r) => {
      const res = await r.http.send('POST', `/v1/namespaces/${r.opts.namespace}/challenge`, { body: { method: 'dns' } });
      if (/^io\.github\./.test(r.opts.namespace)) {
        expectProblem(res, 400);
        return;
      }
      expectStatus(res, 201);
      expect(typeof res.body?.token === 'string' && res.body.token.length >= 16, 'a challenge token of at least 16 characters');
      expect(res.body?.instructions?.value === `svc-verify=${res.body.token}`, 'the TXT record value is svc-verify=<token>');
      expectProblem(await r.http.send('POST', '/v1/namespaces/1.0.0.127/challenge', { body: { method: 'well-known' } }), 400);
    },
  },
  {
    name: 'directory validate answers a ValidationResult',
    run: async (r) => {
      const bad = await r.http.send('POST', '/v1/directory/validate', { body: { kind: 'DirectoryEntry', id: 'nobody' } });
      expectStatus(bad, 200);
      expectValidationResult(bad, false, 'schema');
    },
  },
  {
    name: 'directory publish needs a token (401)',
    run: async (r) => {
      const body = {
        kind: 'DirectoryEntry',
        id: `did:web:${domainOf(r.opts.namespace)}`,
        name: 'Conformance',
        roles: ['other'],
        country: 'ZZ',
      };
      expectProblem(await r.http.send('POST', '/v1/directory/publish', { body, key: r.key() }), 401);
    },
  },
  {
    name: 'directory publish lists an organization with a verification status (personal namespaces refused)',
    run: async (r) => {
      const body = {
        kind: 'DirectoryEntry',
        id: `did:web:${domainOf(r.opts.namespace)}`,
        name: `Conformance ${r.id}`,
        roles: ['other'],
        country: 'ZZ',
      };
      const res = await r.http.send('POST', '/v1/directory/publish', { body, token: r.opts.token, key: r.key() });
      if (/^io\.github\./.test(r.opts.namespace)) {
        expectStatus(res, 422);
        return;
      }
      expectStatus(res, (s) => s === 201 || s === 200);
      expect(typeof res.body?.verification?.method === 'string', 'the listing must carry a verification status');
      const dir = (await r.http.send('GET', '/v1/directory.json')).body;
      expect(
        dir.entries.some((e: { id: string; name: string }) => e.id === body.id && e.name === body.name),
        'directory.json must list it',
      );
    },
  },
];
