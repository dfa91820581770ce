import t from 'tap';
import { checkRegistryName, checkRegistryVersion } from './registry-names.js';

t.test('registry names', async (t) => {
  const cases: [unknown, string | null][] = [
    ['org.example/recipes', null],
    ['io.github.someone/my_recipes-2.0', null],
    ['a.b/c', null],
    ['ab', 'length'],
    [`org.example/${'a'.repeat(200)}`, 'length'],
    ['Org.Example/x', 'not_lower_case'],
    ['org.example/X', 'not_lower_case'],
    ['org.example', 'one_slash_required'],
    ['org.example/a/b', 'one_slash_required'],
    ['example/recipes', 'bad_format'],
    ['org.example/', 'bad_format'],
    ['org.example/-x', 'bad_format'],
    ['org..example/x', 'bad_format'],
    ['org.example/x y', 'bad_format'],
    [`org.example/${'a'.repeat(101)}`, 'bad_format'],
    [42, 'bad_format'],
  ];
  for (const [name, want] of cases) t.equal(checkRegistryName(name), want, String(name).slice(0, 40));
});

t.test('registry versions', async (t) => {
  const cases: [unknown, string | null][] = [
    ['1.4.2', null],
    ['0.0.0', null],
    ['1.0.0-rc.1+build.5', null],
    ['latest', 'tag_not_allowed'],
    ['*', 'tag_not_allowed'],
    ['^1.4.2', 'range_not_allowed'],
    ['~1.4', 'range_not_allowed'],
    ['>=1.0.0', 'range_not_allowed'],
    ['1.x', 'range_not_allowed'],
    ['1.4.*', 'range_not_allowed'],
    ['1.4.', 'range_not_allowed'],
    ['1.4', 'not_semver'],
    ['v1.4.2', 'not_semver'],
    ['01.4.2', 'not_semver'],
    ['1.4.2-', 'not_semver'],
    ['', 'not_semver'],
    [null, 'not_semver'],
  ];
  for (const [v, want] of cases) t.equal(checkRegistryVersion(v), want, String(v));
});
