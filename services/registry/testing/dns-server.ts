/**
 * A minimal authoritative DNS responder for tests (node:dgram, loopback): it answers TXT queries from an
 * in-memory table and NXDOMAIN for unknown names. Enough for node:dns `resolveTxt` against `127.0.0.1:<port>`.
 */
import { createSocket, type Socket } from 'node:dgram';

const TYPE_TXT = 16;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for Resolver#setServers. */
  address: string;
  /** Set the TXT records of `name` (each string one record). */
  setTxt(name: string, records: string[]): void;
  close(): Promise<void>;
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  while (i < msg.length) {
    const len = msg[i] as number;
    if (len === 0) return { name: labels.join('.'), end: i + 1 };
    if (len > 63) throw new Error('compressed or bad label in a question');
    labels.push(msg.subarray(i + 1, i + 1 + len).toString('latin1'));
    i += 1 + len;
  }
  throw new Error('truncated question');
}

function txtRdata(record: string): Buffer {
  const bytes = Buffer.from(record, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
    if (bytes.length === 0) break;
  }
  return Buffer.concat(parts);
}

export function answer(query: Buffer, table: Map<string, string[]>): Buffer | null {
  if (query.length < 12) return null;
  const { name, end } = readName(query, 12);
  const qtype = query.readUInt16BE(end);
  const question = query.subarray(12, end + 4);
  const records = table.get(name.toLowerCase());
  const answers = records && qtype === TYPE_TXT ? records : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  const rd = query.readUInt16BE(2) & 0x0100;
  header.writeUInt16BE(0x8400 | rd | (records ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  const rrs = answers.map((r) => {
    const rdata = txtRdata(r);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0);
    rr.writeUInt16BE(TYPE_TXT, 2);
    rr.writeUInt16BE(1, 4);
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, question, ...rrs]);
}

export async function startTestDnsServer(): Promise<TestDnsServer> {
  const table = new Map<string, string[]>();
  const socket: Socket = createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    let reply: Buffer | null = null;
    try {
      reply = answer(msg, table);
    } catch {
      reply = null;
    }
    if (reply) socket.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    setTxt(name, records) {
      table.set(name.toLowerCase(), records);
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
