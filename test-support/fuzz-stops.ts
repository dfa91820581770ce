/**
 * Heat cut by every stop, in the middle of the hostile run: heat the simulated fryer, send a stop over one path
 * (REST e-stop, MQTT e-stop command, the MCP emergency_stop tool, the dashboard's e-stop), and wait (bounded) until
 * the simulated heaters carry no power. The outcome is read from the rig's heaters, not from the supervisor's record.
 */
import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import type { Surface, Tally } from './fuzz.js';
import type { FuzzTarget } from './fuzz-target.js';

async function cutWithin(h: FuzzTarget, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (await h.heatOn()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

const VIA: Record<string, (h: FuzzTarget, token: string, kitchen: string) => Promise<unknown>> = {
  rest: (h, token) => h.call('POST', '/svc/v1/safety/estop', { token, body: { reason: 'fuzz' } }),
  'rest-any-body': (h, token) =>
    fetch(`${h.url}/svc/v1/safety/estop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: '💥',
    }),
  dashboard: (h, token) => h.call('POST', '/dashboard/v1/estop', { token, key: `fuzz-${randomUUID()}` }),
  mcp: (h, token) =>
    fetch(`${h.url}/svc/v1/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'emergency_stop', arguments: { reason: 'fuzz' } },
      }),
    }).then((r) => r.text()),
  mqtt: async (h, token, kitchen) => {
    const c = await mqtt.connectAsync(h.mqttUrl, { protocolVersion: 5, reconnectPeriod: 0, username: 'button', password: token });
    await c.publishAsync(`svc/${kitchen}/command/estop`, '{}', { qos: 1 });
    await c.endAsync();
  },
};

export async function stopChecks(
  h: FuzzTarget,
  token: string,
  kitchen: string,
  t: Tally,
  fail: (s: Surface, what: string) => void,
): Promise<{ via: string; heatCut: boolean }[]> {
  const out: { via: string; heatCut: boolean }[] = [];
  for (const [via, send] of Object.entries(VIA)) {
    t.sent++;
    if (!(await h.heat())) {
      fail('stop', `${via}: could not heat the simulated fryer before the stop`);
      continue;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      send(h, token, kitchen).catch((err: Error) => fail('stop', `${via}: ${err.message}`)),
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          fail('stop', `${via}: the stop request did not finish within 10 s`);
          resolve();
        }, 10_000);
      }),
    ]);
    clearTimeout(timer);
    const heatCut = await cutWithin(h, 10_000);
    out.push({ via, heatCut });
    if (heatCut) t.ok++;
    else fail('stop', `${via}: heat still on 10 s after the stop`);
  }
  await h.reset();
  return out;
}
