/**
 * The embedded broker's front door against hostile connections over real sockets: an oversized packet before
 * CONNECT, too many bytes before CONNECT, too many connections from one address, and a client-id takeover by
 * another token.
 *
 * @own-process: a test here bounds how much the process's resident memory grows.
 */
import { once } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import mqtt, { type MqttClient } from 'mqtt';
import t, { type Test } from 'tap';
import { makeKitchen, until } from '../events/testing.js';
import { EmbeddedBroker } from './broker.js';
import type { FrontDoorLimits } from './front-door.js';

async function setup(t: Test, frontDoor: Partial<FrontDoorLimits> = {}) {
  const k = makeKitchen({ kitchenId: 'k1' });
  const logs: string[] = [];
  const broker = new EmbeddedBroker({ kitchenId: 'k1', tokens: k.tokens, port: 0, wsPort: 0, frontDoor, log: (m) => logs.push(m) });
  await broker.start();
  const clients: MqttClient[] = [];
  const sockets: Socket[] = [];
  t.teardown(async () => {
    for (const c of clients) await c.endAsync(true).catch(() => {});
    for (const s of sockets) s.destroy();
    await broker.stop();
    k.db.close();
  });
  const raw = async () => {
    const s = netConnect(broker.port, '127.0.0.1');
    s.on('error', () => {});
    sockets.push(s);
    await once(s, 'connect');
    return s;
  };
  const client = async (token: string, clientId: string) => {
    const c = await mqtt.connectAsync(
      `mqtt://127.0.0.1:${broker.port}`,
      { protocolVersion: 5, reconnectPeriod: 0, clientId, username: 'u', password: token, connectTimeout: 20_000 },
      false,
    );
    clients.push(c);
    return c;
  };
  return { k, broker, raw, client, logs };
}

/** A promise that settles after `ms` without keeping the process alive. */
const within = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/** The MQTT fixed header of a packet of type `type` whose body is `length` bytes. */
function fixedHeader(type: number, length: number): Buffer {
  const bytes = [type << 4];
  let n = length;
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    bytes.push(b);
  } while (n > 0);
  return Buffer.from(bytes);
}

/** Write `total` bytes (after `head`) as fast as the socket takes them; resolve with how many went out before it closed. */
async function pour(s: Socket, head: Buffer, total: number): Promise<{ written: number; closed: boolean }> {
  const chunk = Buffer.alloc(64 * 1024, 0x41);
  let written = 0;
  let closed = false;
  const gone = new Promise<void>((resolve) =>
    s.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  s.write(head);
  while (written < total && !closed && !s.destroyed) {
    const ok = s.write(chunk);
    written += chunk.length;
    if (!ok) await Promise.race([new Promise((r) => s.once('drain', r)), gone]);
  }
  if (!closed) await Promise.race([gone, within(30_000)]);
  return { written, closed };
}

t.test('an 80 MB packet before CONNECT is dropped without the broker buffering it', async (t) => {
  const { raw } = await setup(t);
  global.gc?.();
  const before = process.memoryUsage().rss;
  const total = 80 * 1024 * 1024;
  for (const type of [1, 3]) {
    // CONNECT (1) and PUBLISH (3), each announcing an 80 MB body.
    const { written, closed } = await pour(await raw(), fixedHeader(type, total), total);
    t.ok(closed, `packet type ${type}: the connection is closed`);
    t.ok(written < total, `packet type ${type}: closed before the body was all sent (${written} bytes went out)`);
  }
  global.gc?.();
  const grown = (process.memoryUsage().rss - before) / 1024 / 1024;
  t.ok(grown < 40, `RSS grew ${grown.toFixed(1)} MB (bound 40 MB; an 80 MB packet held would be far more)`);
});

t.test('a connection that sends more than the pre-CONNECT allowance is closed', async (t) => {
  const { raw, logs } = await setup(t, { maxPreConnectBytes: 16 * 1024 });
  // A 100 KB CONNECT: under the packet limit, over what a connection may send before it has logged in.
  const { closed } = await pour(await raw(), fixedHeader(1, 100 * 1024), 100 * 1024);
  t.ok(closed, 'closed');
  t.ok(
    logs.some((l) => /too much before CONNECT/.test(l)),
    'logged as too much before CONNECT',
  );
});

t.test('connections per address are capped', async (t) => {
  const { raw, k, client } = await setup(t, { maxConnectionsPerAddress: 3 });
  const held = [await raw(), await raw(), await raw()];
  const fourth = await raw();
  await Promise.race([new Promise((r) => fourth.once('close', r)), within(30_000)]);
  t.ok(fourth.destroyed, 'the fourth connection from one address is closed at once');
  for (const s of held) t.notOk(s.destroyed, 'the first three stay open');
  held[0]?.destroy();
  await until(() => held[0]?.destroyed === true, 10_000, 'first closed');
  // Once one closed, a real client gets in.
  const { token } = k.tokens.create({ name: 'panel', scopes: ['read'] });
  let c: MqttClient | undefined;
  // The broker frees the slot once it has seen the close: retry until then (bounded generously for a loaded machine).
  for (const end = Date.now() + 30_000; !c && Date.now() < end; ) {
    c = await client(token, 'panel-1').catch(() => undefined);
    if (!c) await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(c?.connected, 'a client gets in once a slot is free');
});

t.test('another token cannot take over a client id; its own token can', async (t) => {
  const { k, client } = await setup(t);
  const display = k.tokens.create({ name: 'display', scopes: ['read'] }).token;
  const intruder = k.tokens.create({ name: 'intruder', scopes: ['read', 'cook'] }).token;
  const owner = await client(display, 'kitchen-display');
  let kicked = false;
  owner.on('close', () => {
    kicked = true;
  });
  await t.rejects(client(intruder, 'kitchen-display'), /identifier|client id/i, 'the takeover is refused');
  t.ok(owner.connected, 'the owner stays connected');
  t.notOk(kicked, 'the owner was not disconnected');
  // The same token reconnecting (a display that restarts) may take its own session over.
  const again = await client(display, 'kitchen-display');
  t.ok(again.connected, 'the owner’s own token takes the id over');
  // Once the owner's token is revoked, the id is free for another token.
  await again.endAsync();
  k.tokens.revoke('display');
  const next = await client(intruder, 'kitchen-display');
  t.ok(next.connected, 'a revoked owner no longer holds the id');
});
