/** Broker URL checks, kept free of the MQTT client so the config can use them without loading it. */
const PROTOCOLS = new Set(['mqtt:', 'mqtts:', 'ws:', 'wss:', 'tcp:', 'ssl:']);

/** Check a broker URL; returns an error message or undefined. */
export function checkBrokerUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL (use mqtt://host:port)`;
  }
  if (!PROTOCOLS.has(u.protocol)) return `${JSON.stringify(url)}: the broker URL must start with mqtt://, mqtts://, ws:// or wss://`;
  if (u.hostname === '') return `${JSON.stringify(url)}: the broker URL needs a host`;
  return undefined;
}
