import t from 'tap';
import { asJson, jsonEqual } from './compare.js';

t.test('deep equality after JSON parsing', async (t) => {
  t.ok(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }), 'key order ignored');
  t.ok(jsonEqual(36, 36.0));
  t.ok(jsonEqual(asJson(-0), 0), '-0 equals 0');
  t.ok(jsonEqual(-0, 0));
  t.notOk(jsonEqual({ a: 1 }, { a: 1, b: 2 }));
  t.notOk(jsonEqual({ a: 1, b: undefined }, { a: 1, c: undefined }));
  t.notOk(jsonEqual([1, 2], [2, 1]), 'array order counts');
  t.notOk(jsonEqual([], {}));
  t.notOk(jsonEqual(null, {}));
  t.notOk(jsonEqual('1', 1));
  t.notOk(jsonEqual({ a: null }, {}), 'null is not absent');
  t.ok(jsonEqual(asJson({ a: undefined, b: 1 }), { b: 1 }), 'undefined members drop when carried as JSON');
  t.equal(asJson(undefined), null);
});
