/** `hearth token create|list|revoke` over the tokens table of the store in the data directory. */
import { type PrincipalKind, TokenStore, tokenGrantsMigration, tokensMigration } from '../../platform/http/auth.js';
import { withCliDatabase } from '../cli/database.js';
import { CliError } from '../cli/errors.js';

function withTokens<T>(dataDir: string | undefined, fn: (tokens: TokenStore) => T): T {
  return withCliDatabase(dataDir, [tokensMigration, tokenGrantsMigration], (db) => fn(new TokenStore(db)));
}

export interface CreateTokenOptions {
  scopes: string;
  name?: string;
  kind?: string;
  /** Comma-separated MQTT topic filters outside svc/ (platform/http/mqtt-grants.ts). */
  mqttPublish?: string;
  mqttSubscribe?: string;
  dataDir?: string;
  json?: boolean;
}

export function createToken(o: CreateTokenOptions): void {
  const kind = o.kind ?? 'human';
  if (kind !== 'human' && kind !== 'agent') throw new CliError(`--kind must be human or agent, not ${JSON.stringify(kind)}`);
  const scopes = o.scopes.split(',').map((s) => s.trim());
  const { token, info } = withTokens(o.dataDir, (tokens) => {
    try {
      return tokens.create({
        scopes,
        name: o.name,
        kind: kind as PrincipalKind,
        mqtt: { publish: o.mqttPublish?.split(',') ?? [], subscribe: o.mqttSubscribe?.split(',') ?? [] },
      });
    } catch (err) {
      throw new CliError((err as Error).message);
    }
  });
  if (o.json) process.stdout.write(`${JSON.stringify({ token, ...info })}\n`);
  else {
    process.stdout.write(`${token}\n`);
    const grants = info.mqtt
      ? `, mqtt publish ${info.mqtt.publish.join(',') || '-'} subscribe ${info.mqtt.subscribe.join(',') || '-'}`
      : '';
    process.stderr.write(
      `token ${info.id} (${info.name}, ${info.kind}, scopes ${info.scopes.join(',')}${grants}): shown once, stored hashed\n`,
    );
  }
}

export function listTokens(o: { dataDir?: string; json?: boolean }): void {
  const list = withTokens(o.dataDir, (tokens) => tokens.list());
  if (o.json) {
    process.stdout.write(`${JSON.stringify(list)}\n`);
    return;
  }
  if (list.length === 0) process.stdout.write('no tokens\n');
  for (const t of list) {
    process.stdout.write(
      `${t.id}\t${t.name}\t${t.kind}\t${t.scopes.join(',')}\t${t.createdAt}${t.revokedAt ? `\trevoked ${t.revokedAt}` : ''}${
        t.mqtt ? `\tmqtt publish ${t.mqtt.publish.join(',') || '-'} subscribe ${t.mqtt.subscribe.join(',') || '-'}` : ''
      }\n`,
    );
  }
}

export function revokeToken(o: { idOrName: string; dataDir?: string; json?: boolean }): void {
  const n = withTokens(o.dataDir, (tokens) => tokens.revoke(o.idOrName));
  if (n === 0) throw new CliError(`no active token with id or name ${JSON.stringify(o.idOrName)}`);
  if (o.json) process.stdout.write(`${JSON.stringify({ revoked: n })}\n`);
  else process.stdout.write(`revoked ${n} token${n === 1 ? '' : 's'}\n`);
}
