/** ISO 8601 durations as used by recipes (`PT5M`, `PT1H30M`, `PT45S`, `P1D`). */

const ISO_DURATION = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** Seconds of an ISO 8601 day/time duration, or undefined when `v` is not one. */
export function durationSeconds(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === 'P' || v.endsWith('T')) return undefined;
  const m = ISO_DURATION.exec(v);
  if (!m) return undefined;
  const [, d, h, min, s] = m;
  return Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0);
}
