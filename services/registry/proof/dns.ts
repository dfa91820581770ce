/** Namespace proof by a DNS TXT record `svc-verify=<token>` on the domain (node:dns, configurable servers). */
import { Resolver } from 'node:dns/promises';

export type ProofOutcome = { ok: true } | { ok: false; message: string };

export interface DnsProofOptions {
  /** Resolver addresses such as `127.0.0.1:5353`; default: the system's resolvers. */
  servers?: readonly string[];
  timeoutMs?: number;
}

export async function checkDnsTxt(domain: string, token: string, opts: DnsProofOptions = {}): Promise<ProofOutcome> {
  const resolver = new Resolver({ timeout: opts.timeoutMs ?? 3000, tries: 2 });
  if (opts.servers && opts.servers.length > 0) resolver.setServers([...opts.servers]);
  let records: string[][];
  try {
    records = await resolver.resolveTxt(domain);
  } catch (err) {
    const code = (err as { code?: string }).code ?? (err as Error).message;
    return { ok: false, message: `no TXT record for ${domain} could be read (${code})` };
  }
  const want = `svc-verify=${token}`;
  if (records.some((chunks) => chunks.join('').trim() === want)) return { ok: true };
  return { ok: false, message: `no TXT record "${want}" on ${domain} (found ${records.length} TXT record(s))` };
}
