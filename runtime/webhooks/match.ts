/** A subscription's `types` are CloudEvent type prefixes: `svc.task.` matches `svc.task.updated`. */
export function matchesTypes(type: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => type.startsWith(p));
}
