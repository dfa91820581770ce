/**
 * Event subscribers for tests, each over a real socket as a third party would attach: an MQTT 5 client (the
 * `mqtt` package) logged in with a paired token, a Server-Sent Events client (the `eventsource` package) and a
 * webhook receiver on 127.0.0.1 port 0 that keeps every delivery's raw body and headers. Each one collects the
 * CloudEvents it saw; `waitFor` is a bounded wait that fails with the caller's description of what is missing.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventSource } from 'eventsource';
import mqtt from 'mqtt';

/** The parts of a CloudEvent these tests look at. */
export interface SeenEvent {
  id: string;
  type: string;
  subject?: string;
  data?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface MqttSeen {
  topic: string;
  retain: boolean;
  qos: number;
  contentType: string | undefined;
  ce: SeenEvent;
}

/** An MQTT 5 subscriber: connect with the token as the password, subscribe with QoS 2, keep every message. */
export async function mqttSubscriber(url: string, username: string, token: string, filter: string) {
  const client = await mqtt.connectAsync(url, {
    protocolVersion: 5,
    username,
    password: token,
    clientId: `test-${username}-${process.pid}`,
    reconnectPeriod: 0,
    connectTimeout: 10_000,
  });
  const got: MqttSeen[] = [];
  /** Topics that got an empty retained message: the broker's way of clearing a retained alarm. */
  const cleared: string[] = [];
  /** Messages that are not CloudEvents (e.g. Home Assistant state topics). */
  const other: { topic: string; payload: string }[] = [];
  client.on('message', (topic, payload, packet) => {
    const contentType = packet.properties?.contentType;
    if (payload.length === 0) cleared.push(topic);
    else if (contentType !== 'application/cloudevents+json') other.push({ topic, payload: payload.toString() });
    else got.push({ topic, qos: packet.qos, retain: packet.retain, contentType, ce: JSON.parse(payload.toString()) as SeenEvent });
  });
  const granted = await client.subscribeAsync(filter, { qos: 2 });
  return { client, got, cleared, other, granted, close: () => client.endAsync() };
}

export interface SseSeen {
  position: string;
  ce: SeenEvent;
}

/** An SSE subscriber with a bearer token; resolves once the stream is open. */
export async function sseSubscriber(url: string, token: string) {
  const got: SseSeen[] = [];
  const es = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers ?? {}), authorization: `Bearer ${token}` } }),
  });
  es.onmessage = (m) => got.push({ position: m.lastEventId, ce: JSON.parse(m.data) as SeenEvent });
  await new Promise<void>((resolve, reject) => {
    es.onopen = () => resolve();
    es.onerror = (e) => {
      if (es.readyState === EventSource.CLOSED) reject(new Error(`SSE failed: ${e.message ?? e.code}`));
    };
  });
  return { es, got, close: () => es.close() };
}

export interface WebhookSeen {
  headers: IncomingHttpHeaders;
  rawBody: string;
  ce: SeenEvent;
}

/** A webhook receiver on 127.0.0.1 port 0: answers 204 to every POST and keeps its raw body and headers. */
export async function webhookReceiver() {
  const got: WebhookSeen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      try {
        got.push({ headers: req.headers, rawBody, ce: JSON.parse(rawBody) as SeenEvent });
        res.statusCode = 204;
      } catch {
        res.statusCode = 400;
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/svc`,
    got,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Poll `missing()` until it returns an empty list, for at most `ms`; otherwise throw `what` with what is still
 * missing. Never waits longer than the bound, which only limits how long a broken run hangs (generous for a
 * loaded machine).
 */
export async function waitFor(what: string, missing: () => string[], ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const left = missing();
    if (left.length === 0) return;
    if (Date.now() > until) throw new Error(`${what}: still missing after ${ms} ms: ${left.join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
