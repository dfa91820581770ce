/**
 * `hearth mandate sign|trust|keys`: a person makes a signed agent mandate with their key file (`hearth keygen
 * --actor ME`), and the device learns which principal keys mandates must be signed with.
 */

import { parseKeyFile } from '../../core/keys.js';
import { CONFIRM_BEFORE, MANDATE_SCOPES, type Money } from '../../core/mandate.js';
import { signDocument } from '../../core/signature.js';
import { parseRfc3339, toRfc3339Seconds } from '../../core/time.js';
import { json, output, readJsonFile } from '../cli/commands/documents-io.js';
import { withCliDatabase } from '../cli/database.js';
import { CliError } from '../cli/errors.js';
import { MANDATE_ALLERGEN_ACK } from '../executor/start-checks.js';
import { PrincipalKeyError, PrincipalKeyStore, principalKeysMigration } from '../store/principal-keys.js';

export interface SignMandateOptions {
  key: string;
  agent: string;
  scopes: string;
  expires: string;
  confirmBefore?: string;
  allowedProviders?: string;
  perOrderCap?: string;
  spendCap?: string;
  acknowledgeAllergens?: string;
  signedAt?: string;
  out?: string;
}

const list = (v: string | undefined): string[] | undefined =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');

function money(v: string, flag: string): Money {
  const m = /^([0-9]+(?:\.[0-9]{1,4})?)\s*([A-Z]{3})$/.exec(v.trim());
  if (!m) throw new CliError(`${flag} must be an amount and an ISO 4217 currency, like 50EUR`);
  return { amount: Number(m[1]), currency: m[2] as string };
}

/** In the future: `2026-12-01T00:00:00Z`, or a duration from now (`30m`, `12h`, `7d`). */
function expiry(v: string): string {
  const d = /^([0-9]{1,4})(m|h|d)$/.exec(v.trim());
  if (d) return toRfc3339Seconds(new Date(Date.now() + Number(d[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[d[2] as 'm' | 'h' | 'd']));
  if (!parseRfc3339(v)) throw new CliError('--expires must be an RFC 3339 time with offset (2026-12-01T00:00:00Z) or a duration (12h, 7d)');
  if (Date.parse(v) <= Date.now()) throw new CliError('--expires is in the past');
  return v;
}

export function signMandate(o: SignMandateOptions): void {
  let key: ReturnType<typeof parseKeyFile>;
  try {
    key = parseKeyFile(readJsonFile(o.key, 'key file'));
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${o.key}: ${(err as Error).message}`);
  }
  const scopes = list(o.scopes) ?? [];
  const badScope = scopes.find((s) => !(MANDATE_SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || badScope !== undefined)
    throw new CliError(`--scopes must list some of ${MANDATE_SCOPES.join(', ')}${badScope ? ` (not ${JSON.stringify(badScope)})` : ''}`);
  const confirm = list(o.confirmBefore);
  const badConfirm = confirm?.find((s) => !(CONFIRM_BEFORE as readonly string[]).includes(s));
  if (badConfirm !== undefined)
    throw new CliError(`--confirm-before takes ${CONFIRM_BEFORE.join(', ')} (not ${JSON.stringify(badConfirm)})`);
  if (o.agent.trim() === '' || o.agent.length > 200) throw new CliError('--agent is the agent token id (tok_…) or name, 1-200 characters');
  const doc: Record<string, unknown> = {
    kind: 'AgentMandate',
    principal: key.actor,
    agent: o.agent.trim(),
    scopes,
    expires: expiry(o.expires),
  };
  if (confirm) doc.confirmBefore = confirm;
  const providers = list(o.allowedProviders);
  if (providers) doc.allowedProviders = providers;
  if (o.perOrderCap !== undefined) doc.perOrderCap = money(o.perOrderCap, '--per-order-cap');
  if (o.spendCap !== undefined) doc.spendCap = money(o.spendCap, '--spend-cap');
  const allergens = list(o.acknowledgeAllergens);
  if (allergens) doc[MANDATE_ALLERGEN_ACK] = allergens.map((a) => a.toLowerCase());
  let signed: Record<string, unknown>;
  try {
    signed = signDocument(doc, key, { kind: 'AgentMandate', ...(o.signedAt ? { signedAt: o.signedAt } : {}) });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  output(json(signed), o.out);
}

export function trustKey(o: { file: string; dataDir?: string; json?: boolean }): void {
  const raw = readJsonFile(o.file, 'key record');
  const rec = withCliDatabase(o.dataDir, [principalKeysMigration], (db) => {
    try {
      return new PrincipalKeyStore(db).add(raw, 'cli');
    } catch (err) {
      if (err instanceof PrincipalKeyError) throw new CliError(`${o.file}: ${err.message}`);
      throw err;
    }
  });
  if (o.json) process.stdout.write(`${JSON.stringify(rec)}\n`);
  else process.stdout.write(`principal ${rec.actor}: key ${rec.kid} registered; mandates signed with it now verify\n`);
}

export function listKeys(o: { dataDir?: string; json?: boolean }): void {
  const keys = withCliDatabase(o.dataDir, [principalKeysMigration], (db) => new PrincipalKeyStore(db).list());
  if (o.json) {
    process.stdout.write(`${JSON.stringify(keys)}\n`);
    return;
  }
  if (keys.length === 0) process.stdout.write('no principal keys\n');
  for (const k of keys) process.stdout.write(`${k.actor}\t${k.kid}\t${k.validFrom}${k.revokedAt ? `\trevoked ${k.revokedAt}` : ''}\n`);
}
