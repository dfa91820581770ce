/** Test helpers for the hub's GraphQL endpoint: POST a GraphQL operation over a real socket; a graphql-ws client. */
import { type Client, createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import type { TestHub } from '../hub/test-helpers.js';

export interface GqlError {
  message: string;
  extensions?: Record<string, unknown>;
}

export interface GqlAnswer {
  status: number;
  headers: Headers;
  data: Record<string, unknown> | null | undefined;
  errors: GqlError[] | undefined;
  body: Record<string, unknown>;
}

export async function gql(
  h: TestHub,
  query: string,
  opts: { token?: string; variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<GqlAnswer> {
  const res = await fetch(`${h.url}/svc/v1/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.headers ?? {}),
    },
    body: JSON.stringify({ query, ...(opts.variables ? { variables: opts.variables } : {}) }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  return {
    status: res.status,
    headers: res.headers,
    data: body.data as GqlAnswer['data'],
    errors: body.errors as GqlError[] | undefined,
    body,
  };
}

/** A graphql-ws client on the hub, with the token in the connection_init payload (or in the upgrade header). */
export function wsClient(
  h: TestHub,
  token: string | undefined,
  opts: { header?: boolean; onClosed?: (code: number, reason: string) => void; headers?: Record<string, string> } = {},
): Client {
  const url = `${h.url.replace(/^http/, 'ws')}/svc/v1/graphql`;
  const headers = { ...(opts.headers ?? {}), ...(opts.header && token ? { authorization: `Bearer ${token}` } : {}) };
  class HeaderSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  return createClient({
    url,
    webSocketImpl: HeaderSocket,
    retryAttempts: 0,
    lazy: true,
    ...(token && !opts.header ? { connectionParams: { authorization: `Bearer ${token}` } } : {}),
    on: {
      closed: (e) => {
        const ev = e as { code?: number; reason?: string };
        opts.onClosed?.(ev.code ?? 0, String(ev.reason ?? ''));
      },
    },
  });
}

/** Collect the results of one subscription; `next(n)` waits (generously) for the n-th one. */
export function collect<T = Record<string, unknown>>(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const got: { data?: T; errors?: GqlError[] }[] = [];
  const waiters: (() => void)[] = [];
  let error: unknown;
  let completed = false;
  const wakeAll = () => {
    for (const w of waiters.splice(0)) w();
  };
  const dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (v) => {
        got.push(v as { data?: T; errors?: GqlError[] });
        wakeAll();
      },
      error: (e) => {
        error = e;
        wakeAll();
      },
      complete: () => {
        completed = true;
        wakeAll();
      },
    },
  );
  const until = async (done: () => boolean, what: string, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return {
    got,
    dispose,
    get error() {
      return error;
    },
    get completed() {
      return completed;
    },
    next: async (n: number) => {
      await until(() => got.length >= n || error !== undefined || completed, `result ${n}`);
      return got[n - 1];
    },
    ended: () => until(() => error !== undefined || completed, 'the end of the subscription'),
  };
}

/** Wait (generously, on a condition, never a fixed sleep) until `done()` holds. */
export async function waitFor(done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
