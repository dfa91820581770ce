/**
 * The embedded broker's front door: what a connection may cost before it has logged in. aedes itself parses
 * whatever arrives and, without a packet size limit, buffers an 80 MB packet whole before anyone knows who sent
 * it. The front door bounds that:
 * - every packet (CONNECT included) is at most `maxPacketBytes` (aedes `maximumPacketSize`, checked as soon as the
 *   fixed header is read, so an oversized packet is dropped before its body is buffered);
 * - a connection may send at most `maxPreConnectBytes` before its CONNECT is accepted, then it is closed;
 * - a CONNECT must arrive within `connectTimeoutMs` (aedes `connectTimeout`);
 * - at most `maxConnectionsPerAddress` connections from one address at once (TCP and WebSocket together).
 * Client ids belong to one principal: see `ClientIdOwners`.
 */

import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Client } from 'aedes';
import type { WebSocket } from 'ws';

export interface FrontDoorLimits {
  /** Largest MQTT packet accepted, in bytes (default 256 KiB). */
  maxPacketBytes: number;
  /** Bytes a connection may send before its CONNECT is accepted (default 64 KiB). */
  maxPreConnectBytes: number;
  /** Time for the CONNECT to arrive (default 10 s). */
  connectTimeoutMs: number;
  /** Open connections from one address (default 32). */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_FRONT_DOOR: FrontDoorLimits = {
  maxPacketBytes: 256 * 1024,
  maxPreConnectBytes: 64 * 1024,
  connectTimeoutMs: 10_000,
  maxConnectionsPerAddress: 32,
};

/** What aedes hangs on the stream it handles (`conn.client`). */
type Handled = { client?: Client };

const connected = (conn: Handled): boolean => conn.client?.connected === true;

export class FrontDoor {
  private readonly perAddress = new Map<string, number>();

  constructor(
    readonly limits: FrontDoorLimits,
    private readonly log?: (msg: string, detail?: Record<string, unknown>) => void,
  ) {}

  /** Count a new connection from `address`; false (and nothing counted) when the address has too many open. */
  admit(address: string | undefined, onClose: (fn: () => void) => void): boolean {
    const key = address ?? 'unknown';
    const n = this.perAddress.get(key) ?? 0;
    if (n >= this.limits.maxConnectionsPerAddress) {
      this.log?.('mqtt connection refused: too many from one address', { address: key, open: n });
      return false;
    }
    this.perAddress.set(key, n + 1);
    let released = false;
    onClose(() => {
      if (released) return;
      released = true;
      const left = (this.perAddress.get(key) ?? 1) - 1;
      if (left <= 0) this.perAddress.delete(key);
      else this.perAddress.set(key, left);
    });
    return true;
  }

  /** Close a TCP connection that sends more than `maxPreConnectBytes` before its CONNECT is accepted. */
  watchTcp(socket: Socket): void {
    const check = () => {
      if (connected(socket as unknown as Handled)) {
        socket.off('readable', check);
        return;
      }
      if (socket.bytesRead > this.limits.maxPreConnectBytes) this.drop(socket, socket.remoteAddress, socket.bytesRead);
    };
    socket.on('readable', check);
  }

  /** The same for MQTT over WebSocket: count the frames' bytes until the CONNECT is accepted. */
  watchWebSocket(ws: WebSocket, stream: Duplex, address: string | undefined): void {
    let bytes = 0;
    const check = (data: Buffer | ArrayBuffer | Buffer[]) => {
      if (connected(stream as unknown as Handled)) {
        ws.off('message', check);
        return;
      }
      bytes += Array.isArray(data) ? data.reduce((s, b) => s + b.length, 0) : data.byteLength;
      if (bytes > this.limits.maxPreConnectBytes) {
        this.log?.('mqtt connection dropped: too much before CONNECT', { address, bytes });
        ws.terminate();
        stream.destroy();
      }
    };
    ws.on('message', check);
  }

  /** Connections counted per address (tests, memory checks). */
  get addresses(): number {
    return this.perAddress.size;
  }

  private drop(socket: Socket, address: string | undefined, bytes: number): void {
    if (socket.destroyed) return;
    this.log?.('mqtt connection dropped: too much before CONNECT', { address, bytes });
    socket.destroy();
  }
}

/**
 * Which principal owns each client id. A client id that a principal holds (connected, or a session kept for it)
 * cannot be used by another principal: MQTT lets a new connection with the same id take the session over and
 * disconnect the old one, which would let any paired token knock a kitchen display off the bus or read the
 * messages queued for it. Ownership ends when a clean session disconnects or the owner's token is revoked.
 */
export class ClientIdOwners {
  private readonly owners = new Map<string, { principalId: string; token: string; client: Client | undefined }>();

  constructor(
    private readonly stillValid: (token: string) => boolean,
    private readonly maxRemembered = 10_000,
  ) {}

  /** May `principalId` use `clientId`? */
  mayUse(clientId: string, principalId: string): boolean {
    const owner = this.owners.get(clientId);
    if (!owner || owner.principalId === principalId) return true;
    if (!this.stillValid(owner.token)) {
      this.owners.delete(clientId);
      return true;
    }
    return false;
  }

  /** Record `client` (just registered) as the owner's connection. */
  claim(client: Client, principalId: string, token: string): void {
    this.owners.delete(client.id);
    this.owners.set(client.id, { principalId, token, client });
    if (this.owners.size <= this.maxRemembered) return;
    for (const [id, o] of this.owners) {
      if (this.owners.size <= this.maxRemembered) break;
      if (o.client === undefined) this.owners.delete(id);
    }
  }

  /** A client disconnected: a clean session ends its ownership; a kept session keeps it for its owner. */
  release(client: Client): void {
    const owner = this.owners.get(client.id);
    if (!owner || owner.client !== client) return;
    if (client.clean) this.owners.delete(client.id);
    else owner.client = undefined;
  }

  get size(): number {
    return this.owners.size;
  }
}
