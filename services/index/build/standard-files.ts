/**
 * The standard's own files an index republishes beside its recipes, so a client can check documents offline
 * against exactly what the index used: vocabularies (`/v1/vocab/{name}.json`), policy packs and profiles
 * (`/v1/policies/{id}.json`, listed in `/v1/policies/index.json`) and the JSON Schemas
 * (`/v1/schemas/{name}.schema.json`). They come from the schemas/ folder of this Hearth, byte for byte.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { dataPath } from '../../../schemas/data.js';
import type { Json } from '../entry.js';

export interface StandardFile {
  /** Path under the index root. */
  path: string;
  text: string;
}

function folder(rel: string, probe: string): { dir: string; names: string[] } {
  const p = dataPath(`${rel}/${probe}`);
  if (p === undefined) throw new Error(`schemas/${rel} is missing from this installation`);
  const dir = dirname(p);
  return {
    dir,
    names: readdirSync(dir)
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .sort(),
  };
}

function read(dir: string, name: string): { text: string; doc: Json } {
  const text = readFileSync(`${dir}/${name}`, 'utf8');
  return { text, doc: JSON.parse(text) as Json };
}

const POLICY_NOTE =
  'Policy packs and profiles this index was built with. A device applies the stricter of its own limits and a pack; nothing here can raise a limit.';

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Every vocabulary, policy and schema file, plus the policy list. */
export function standardFiles(svc: string): StandardFile[] {
  const out: StandardFile[] = [];
  const vocab = folder('vocab', 'ops.json');
  for (const n of vocab.names) out.push({ path: `v1/vocab/${n}`, text: read(vocab.dir, n).text });

  const schemas = folder('json', 'common.schema.json');
  for (const n of schemas.names.filter((x) => x.endsWith('.schema.json')))
    out.push({ path: `v1/schemas/${n}`, text: read(schemas.dir, n).text });

  const policies: Json[] = [];
  for (const rel of ['packs', 'profiles'] as const) {
    const f = folder(rel, rel === 'packs' ? 'safety-limits.default.json' : 'facets.json');
    for (const n of f.names) {
      const { text, doc } = read(f.dir, n);
      const id = typeof doc.id === 'string' ? doc.id : typeof doc.name === 'string' ? doc.name : n.replace(/\.json$/, '');
      if (!SAFE_NAME.test(id)) throw new Error(`schemas/${rel}/${n}: id ${JSON.stringify(id)} cannot name a file`);
      const path = `v1/policies/${id}.json`;
      out.push({ path, text });
      policies.push({
        id,
        kind: typeof doc.kind === 'string' ? doc.kind : rel === 'packs' ? 'pack' : 'profile',
        version: typeof doc.version === 'string' ? doc.version : '0',
        reviewStatus: typeof doc.status === 'string' ? doc.status : 'draft',
        ...(typeof doc.description === 'string' ? { description: doc.description } : {}),
        path: `/${path}`,
      });
    }
  }
  policies.sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : 1));
  out.push({ path: 'v1/policies/index.json', text: `${JSON.stringify({ svc, note: POLICY_NOTE, entries: policies })}\n` });
  return out;
}
