#!/usr/bin/env node
// Applies the project's small change to aedes (the embedded MQTT broker's engine), run by `npm install` /
// `npm ci` as package.json's postinstall, before the build bundles it. Each edit is an exact text replacement in
// one file of node_modules/aedes; an edit already in place is skipped, so running it again is harmless. When aedes
// changes and a `find` text is no longer there, it stops with the file and edit named: update the edit (or drop
// it, when aedes now does the same) rather than run an unpatched broker. What each edit does, and why hooks were
// not enough: docs/events.md (*What the embedded broker adds to aedes*).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARK = 'hearth patch';
const EXPECTED_VERSION = '2.0.0-beta.1';

/** @type {{file: string, what: string, find: string, replace: string}[]} */
export const EDITS = [
  {
    file: 'lib/handlers/subscribe.js',
    what: 'shared subscriptions: refuse $share/… with 0x9E only when the broker does not offer them (broker.sharedSubscriptions)',
    find: 'if (this.client.version === 5 && sub.topic.startsWith(SHARE_PREFIX)) {',
    replace: `if (this.client.version === 5 && sub.topic.startsWith(SHARE_PREFIX) && !this.client.broker.sharedSubscriptions) { // ${MARK}`,
  },
  {
    file: 'lib/handlers/connect.js',
    what: 'shared subscriptions: CONNACK Shared Subscription Available follows broker.sharedSubscriptions',
    find: 'properties.sharedSubscriptionAvailable = false',
    replace: `properties.sharedSubscriptionAvailable = broker.sharedSubscriptions === true // ${MARK}`,
  },
  {
    file: 'lib/handlers/publish.js',
    what: 'a refused publish is answered with the reason code the authorizePublish error carries (0x99 payload format invalid, …), 0x87 by default',
    find: 'ack.reasonCode = ReasonCodes.NOT_AUTHORIZED',
    replace: `ack.reasonCode = err.reasonCode >= 0x80 && err.reasonCode <= 0xA2 ? err.reasonCode : ReasonCodes.NOT_AUTHORIZED // ${MARK}`,
  },
  {
    file: 'lib/client.js',
    what: 'Receive Maximum toward the client: QoS 1/2 deliveries beyond the client’s window wait in a bounded per-client queue',
    find: 'const doWriteQoS = (err = null) => writeQoS(err, that, packet)',
    replace: `const doWriteQoS = (err = null) => flowWrite(err, that, packet) // ${MARK}`,
  },
  {
    file: 'lib/client.js',
    what: 'Receive Maximum: the window and its queue (flowWrite, flowRelease)',
    find: 'function writeQoS (err, client, packet) {',
    replace: `// ${MARK}: MQTT 5.0 Receive Maximum toward the client [MQTT-4.9.0-2]. At most client.receiveMaximum
// QoS 1/2 PUBLISHes are unacknowledged at once; later ones wait in client._held (at most
// broker.outgoingHeldLimit, beyond which they are dropped for this client and 'outgoingDropped' is emitted),
// and the delivery's callback runs at once, so a client that never acknowledges holds nobody else up.
function flowWrite (err, client, packet) {
  if (err || client.version !== 5 || !(packet.qos > 0)) return writeQoS(err, client, packet)
  if (client._inflightIds === undefined) {
    client._inflightIds = new Set()
    client._held = []
  }
  if (client._inflightIds.size < (client.receiveMaximum || 65535)) {
    client._inflightIds.add(packet.messageId)
    return writeQoS(null, client, packet)
  }
  const cb = packet.writeCallback
  packet.writeCallback = noop
  if (client._held.length < (client.broker.outgoingHeldLimit || 1000)) client._held.push(packet)
  else client.broker.emit('outgoingDropped', client, packet)
  cb()
}

// ${MARK}: an acknowledgement (PUBACK, PUBCOMP, or a PUBREC with an error) frees a place in the window.
export function flowRelease (client, messageId) {
  if (client._inflightIds === undefined || !client._inflightIds.delete(messageId)) return
  while (client._held.length > 0) {
    const next = client._held.shift()
    if (next.messageExpiry !== undefined) {
      const left = next.messageExpiry - Date.now()
      if (left <= 0) {
        if (!client.clean) client.broker.persistence.outgoingClearMessageId(client, next).then(noop, noop)
        continue
      }
      next.properties = { ...next.properties, messageExpiryInterval: Math.ceil(left / 1000) }
    }
    client._inflightIds.add(next.messageId)
    writeQoS(null, client, next)
    return
  }
}

function writeQoS (err, client, packet) {`,
  },
  {
    file: 'lib/handlers/puback.js',
    what: 'Receive Maximum: PUBACK and PUBCOMP free a place in the window',
    find: 'function handlePuback (client, packet, done) {',
    replace: `import { flowRelease } from '../client.js' // ${MARK}

function handlePuback (client, packet, done) {
  flowRelease(client, packet.messageId) // ${MARK}`,
  },
  {
    file: 'lib/handlers/pubrec.js',
    what: 'Receive Maximum: a PUBREC with an error code ends the QoS 2 flow and frees a place in the window',
    find: '  if (client.version === 5 && packet.reasonCode >= REASON_CODE_ERROR_THRESHOLD) {\n',
    replace: `  if (client.version === 5 && packet.reasonCode >= REASON_CODE_ERROR_THRESHOLD) {\n    flowRelease(client, packet.messageId) // ${MARK}\n`,
  },
  {
    file: 'lib/handlers/pubrec.js',
    what: 'Receive Maximum: import flowRelease',
    find: "import write from '../write.js'\n",
    replace: `import write from '../write.js'\nimport { flowRelease } from '../client.js' // ${MARK}\n`,
  },
  {
    file: 'lib/handlers/connect.js',
    what: 'Receive Maximum: messages queued for an absent client go through the same window when it returns',
    find: '    write(client, packet, next)\n  }\n}\n\nexport default handleConnect',
    replace: `    flowWrite(null, client, packet) // ${MARK}\n  }\n}\n\nexport default handleConnect`,
  },
  {
    file: 'lib/handlers/connect.js',
    what: 'Receive Maximum: import flowWrite',
    find: "import write from '../write.js'\n",
    replace: `import write from '../write.js'\nimport { flowWrite } from '../client.js' // ${MARK}\n`,
  },
  {
    file: 'lib/client.js',
    what: 'Receive Maximum: export flowWrite for the reconnect queue',
    find: 'export default Client',
    replace: `export { flowWrite } // ${MARK}\nexport default Client`,
  },
  {
    file: 'lib/handlers/connect.js',
    what: 'redelivery on reconnect: a queued message that was already sent (it has a packet identifier) goes again with DUP set [MQTT-3.3.1-1]',
    find: '      const packet = new QoSPacket(data, client)\n',
    replace: `      if (data.cmd === 'publish' && data.messageId !== undefined) data.dup = true // ${MARK}\n      const packet = new QoSPacket(data, client)\n`,
  },
  {
    file: 'lib/handlers/connect.js',
    what: 'Session Present: a kept MQTT 5 session without subscriptions is present too [MQTT-3.2.2-2]',
    find: '  arg.sessionPresent = false // [MQTT-3.2.2-1], [MQTT-3.2.2-3]\n',
    replace: `  arg.sessionPresent = !this.packet.clean && this.client.broker.expiringSessions.has(this.client.id) // ${MARK}\n`,
  },
];

export function aedesDir() {
  // aedes' exports map hides package.json: resolve its main module and walk up to the package folder.
  let dir = dirname(createRequire(import.meta.url).resolve('aedes'));
  while (!existsSync(join(dir, 'package.json')) || JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name !== 'aedes') {
    const up = dirname(dir);
    if (up === dir) throw new Error('aedes is not installed');
    dir = up;
  }
  return dir;
}

/**
 * Apply the edits under `dir` (or take them out again with `revert`, to see a test fail on plain aedes); returns
 * how many were changed now. Throws when one cannot be applied.
 */
export function patchAedes(dir = aedesDir(), revert = false) {
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  if (version !== EXPECTED_VERSION)
    throw new Error(`aedes ${version} is not ${EXPECTED_VERSION}: check scripts/patch-aedes.mjs's edits against it`);
  const files = new Map();
  let applied = 0;
  for (const e of revert ? [...EDITS].reverse() : EDITS) {
    const path = join(dir, e.file);
    const text = files.get(path) ?? readFileSync(path, 'utf8');
    files.set(path, text);
    const [from, to] = revert ? [e.replace, e.find] : [e.find, e.replace];
    if (revert ? !text.includes(e.replace) : text.includes(e.replace)) continue; // already so
    const at = text.indexOf(from);
    if (at === -1 || text.indexOf(from, at + 1) !== -1)
      throw new Error(`cannot patch aedes ${e.file} (${e.what}): its text was not found exactly once`);
    files.set(path, text.slice(0, at) + to + text.slice(at + from.length));
    applied++;
  }
  for (const [path, text] of files) writeFileSync(path, text);
  return applied;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const revert = process.argv.includes('--revert');
    const n = patchAedes(aedesDir(), revert);
    if (revert) console.log(`aedes: took out ${n} of the project's edits (run scripts/patch-aedes.mjs again to put them back)`);
    else
      console.log(
        n === 0 ? "aedes: the project's edits are in place" : `aedes: applied ${n} of the project's edits (scripts/patch-aedes.mjs)`,
      );
  } catch (err) {
    console.error(`patch-aedes: ${err.message}`);
    process.exit(1);
  }
}
