/** Registry entry names and versions (semantics §11). Each check returns null when valid, else the reason. */

const NAME = /^[a-z0-9]+(\.[a-z0-9-]+)+\/[a-z0-9][a-z0-9._-]{0,99}$/;
// Semantic Versioning 2.0.0, the pattern semver.org publishes.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const RANGE_CHARS = /[\^~<>=x*]/;

export type RegistryNameReason = 'length' | 'not_lower_case' | 'one_slash_required' | 'bad_format';
export type RegistryVersionReason = 'tag_not_allowed' | 'range_not_allowed' | 'not_semver';

/** `<reverse-dns namespace>/<name>`, 3–200 characters, lower case, exactly one slash. */
export function checkRegistryName(name: unknown): null | RegistryNameReason {
  if (typeof name !== 'string') return 'bad_format';
  if (name.length < 3 || name.length > 200) return 'length';
  if (name !== name.toLowerCase()) return 'not_lower_case';
  if (name.split('/').length !== 2) return 'one_slash_required';
  return NAME.test(name) ? null : 'bad_format';
}

/** An exact semantic version: no tags (`latest`, `*`), no ranges, no partial versions. */
export function checkRegistryVersion(version: unknown): null | RegistryVersionReason {
  if (typeof version !== 'string') return 'not_semver';
  if (version === 'latest' || version === '*') return 'tag_not_allowed';
  if (RANGE_CHARS.test(version) || version.endsWith('.')) return 'range_not_allowed';
  return SEMVER.test(version) ? null : 'not_semver';
}
