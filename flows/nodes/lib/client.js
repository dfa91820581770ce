// Hearth's public HTTP API as the nodes use it: JSON requests with the config node's bearer token, and a live
// event feed (Server-Sent Events) that reconnects by itself. Nothing here can do more than the token allows:
// the nodes only ever call the public API, where the safety supervisor has the last word.

const { randomUUID } = require('node:crypto');

function trimUrl(url) {
  return String(url || '').replace(/\/+$/, '');
}

/** One JSON request. Resolves {status, body}; rejects only when Hearth cannot be reached. */
async function request(conn, method, path, body, headers = {}) {
  const h = { accept: 'application/json, application/problem+json', ...headers };
  if (conn.token) h.authorization = `Bearer ${conn.token}`;
  if (body !== undefined) h['content-type'] = 'application/json';
  if (method === 'POST' && !h['idempotency-key']) h['idempotency-key'] = `node-red-${randomUUID()}`;
  const res = await fetch(`${trimUrl(conn.url)}${path}`, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(conn.timeoutMs || 15000),
  });
  const text = await res.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

/** A one-line description of a problem document (RFC 9457) or an unexpected answer. */
function describe(r) {
  if (r.body && typeof r.body === 'object' && (r.body.detail || r.body.title))
    return `${r.status} ${r.body.title || ''}: ${r.body.detail || ''}`.trim();
  return `HTTP ${r.status}`;
}

/**
 * Follow the hub's event feed. `types` is a CloudEvent type prefix list (e.g. "svc.telemetry"). Uses
 * /svc/v1/events; a hub without it (404) is followed through the dashboard feed instead, mapped to the same
 * CloudEvent shape. Calls onEvent(cloudEvent) and onState('connected' | 'reconnecting', detail). Returns {close}.
 */
function follow(conn, types, onEvent, onState) {
  let closed = false;
  let ctrl;
  let lastId;
  let useDashboard = false;
  let timer;
  const wanted = String(types || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const matches = (type) => wanted.length === 0 || wanted.some((p) => type === p || type.startsWith(`${p}.`) || type.startsWith(p));
  const fromDashboard = (m) => {
    if (m.type === 'telemetry')
      return {
        type: 'svc.telemetry.reading',
        subject: m.sensor,
        time: m.at,
        data: { sensor: m.sensor, readings: [{ value: m.tempC, unit: 'degC' }], ...(m.fault ? { fault: m.fault } : {}) },
      };
    if (m.type === 'safety')
      return {
        type: m.safety.latched ? 'svc.safety.stop' : 'svc.safety.cleared',
        subject: m.safety.trip ? m.safety.trip.subject : 'hub',
        data: m.safety,
      };
    return undefined;
  };
  const connect = async () => {
    if (closed) return;
    ctrl = new AbortController();
    const path = useDashboard
      ? '/dashboard/v1/events'
      : `/svc/v1/events${wanted.length ? `?types=${encodeURIComponent(wanted.join(','))}` : ''}`;
    try {
      const headers = { accept: 'text/event-stream' };
      if (conn.token) headers.authorization = `Bearer ${conn.token}`;
      if (lastId && !useDashboard) headers['last-event-id'] = lastId;
      const res = await fetch(`${trimUrl(conn.url)}${path}`, { headers, signal: ctrl.signal });
      if (res.status === 404 && !useDashboard) {
        useDashboard = true;
        return connect();
      }
      if (res.status === 401 || res.status === 403) throw new Error(`token refused (${res.status})`);
      if (res.status !== 200 || !res.body) throw new Error(`event feed answered ${res.status}`);
      onState('connected');
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i = buf.indexOf('\n\n');
        while (i >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          i = buf.indexOf('\n\n');
          let data = '';
          for (const line of frame.split('\n')) {
            if (line.startsWith('id: ')) lastId = line.slice(4);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!data) continue;
          let ev;
          try {
            ev = JSON.parse(data);
          } catch {
            continue;
          }
          if (useDashboard) ev = fromDashboard(ev);
          if (ev && typeof ev.type === 'string' && matches(ev.type)) onEvent(ev);
        }
      }
      throw new Error('the event feed closed');
    } catch (err) {
      if (closed) return;
      const why =
        err?.message === 'fetch failed' ? `no Hearth at ${trimUrl(conn.url).replace(/^https?:\/\//, '')}` : err?.message || String(err);
      onState('reconnecting', why);
      timer = setTimeout(connect, conn.retryMs || 2000);
    }
  };
  connect();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      if (ctrl) ctrl.abort();
    },
  };
}

module.exports = { request, describe, follow };
