import t from 'tap';
import { jsonSchema } from './schema.js';

t.test('a JSON Schema as a Standard Schema: values pass, issues name the pointer', async (t) => {
  const schema = { type: 'object', properties: { at: { type: 'string', format: 'date-time' } }, additionalProperties: false };
  const s = jsonSchema<{ at?: string }>(schema);
  t.equal(s['~standard'].vendor, 'hearth');
  t.same(s['~standard'].validate({ at: '2026-01-01T10:00:00Z' }), { value: { at: '2026-01-01T10:00:00Z' } });
  const bad = s['~standard'].validate({ at: 'soon' });
  t.ok('issues' in bad && bad.issues?.[0]?.message.startsWith('/at '), 'formats are checked');
  const extra = s['~standard'].validate({ other: 1 });
  t.ok('issues' in extra && extra.issues?.[0]?.message.startsWith('/ '), 'the root is /');
  t.same(s['~standard'].jsonSchema.input({ target: 'draft-2020-12' }), schema);
});
