/**
 * Checks an agent card against the A2A SDK's 1.0 `AgentCard` type: the SDK reads it and writes it back
 * unchanged (a field of another protocol version, such as 0.3's `url`, `security` or `additionalInterfaces`,
 * would be dropped and show as a difference), the required members are there, and every URL is absolute.
 * Returns the problems found (none for a good card).
 */
import { AgentCard } from '@a2a-js/sdk';

const URL_KEYS = new Set(['url', 'documentationUrl', 'iconUrl']);

function urls(value: unknown, path: string, out: { path: string; value: unknown }[]): void {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) urls(v, `${path}/${i}`, out);
  } else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (URL_KEYS.has(k)) out.push({ path: `${path}/${k}`, value: v });
      else urls(v, `${path}/${k}`, out);
    }
}

export function agentCardProblems(json: unknown): string[] {
  const problems: string[] = [];
  if (!json || typeof json !== 'object' || Array.isArray(json)) return ['the card is not a JSON object'];
  const card = json as Record<string, unknown>;
  const again = AgentCard.toJSON(AgentCard.fromJSON(card)) as Record<string, unknown>;
  for (const k of new Set([...Object.keys(card), ...Object.keys(again)]))
    if (JSON.stringify(card[k]) !== JSON.stringify(again[k])) problems.push(`/${k} is not as the A2A 1.0 card type reads it`);
  for (const k of ['name', 'description', 'version']) if (typeof card[k] !== 'string' || card[k] === '') problems.push(`/${k} is missing`);
  for (const k of ['supportedInterfaces', 'defaultInputModes', 'defaultOutputModes', 'skills'])
    if (!Array.isArray(card[k]) || (card[k] as unknown[]).length === 0) problems.push(`/${k} is missing or empty`);
  for (const [i, s] of ((card.skills ?? []) as Record<string, unknown>[]).entries())
    for (const k of ['id', 'name', 'description'])
      if (typeof s[k] !== 'string' || s[k] === '') problems.push(`/skills/${i}/${k} is missing`);
  const found: { path: string; value: unknown }[] = [];
  urls(card, '', found);
  for (const u of found) {
    let ok = false;
    try {
      ok = typeof u.value === 'string' && ['http:', 'https:'].includes(new URL(u.value).protocol);
    } catch {
      ok = false;
    }
    if (!ok) problems.push(`${u.path} ${JSON.stringify(u.value)} is not an absolute http(s) URL`);
  }
  return problems;
}
