/**
 * systemd's notify protocol (sd_notify) for `hearth start` under a `Type=notify` unit: READY=1 once listening,
 * WATCHDOG=1 every half of WATCHDOG_USEC while the event loop is healthy, STOPPING=1 when shutting down.
 * Nothing happens unless NOTIFY_SOCKET is set.
 *
 * A ping is skipped when the loop is not healthy: when the ping's own timer fired later than a whole ping
 * interval (the loop was blocked for that long), or when the caller's `healthy()` says no. Missing pings is
 * the point: systemd then kills the process after WatchdogSec and runs ExecStopPost (`hearth safe-off`).
 *
 * Node has no unix datagram sockets, so each message is sent by running `systemd-notify` (present wherever
 * systemd is; by default it waits until the manager has processed the message, so the short-lived sender is still
 * attributed to the unit). Because the sender is a child process the unit needs `NotifyAccess=all`; the messages
 * carry MAINPID so systemd keeps tracking the node process itself. See docs/maker.md.
 */
import { spawn } from 'node:child_process';
import { controlActive } from '../../safety/controls.js';

export interface SdNotifyOptions {
  env?: NodeJS.ProcessEnv;
  /** The sender program (default `systemd-notify`). */
  command?: string;
  pid?: number;
  /** Reports a failed send (the first failure only, to keep the log quiet). */
  onError?: (message: string) => void;
  /** Asked before each WATCHDOG=1: false skips the ping (default: always healthy beyond the loop-lag check). */
  healthy?: () => boolean;
  /** Reports a skipped ping and why (for the log). */
  onSkip?: (why: string) => void;
}

export interface SdNotifier {
  /** True when NOTIFY_SOCKET is set. */
  readonly enabled: boolean;
  /** Watchdog ping interval in ms (0 when no watchdog is asked for). */
  readonly watchdogMs: number;
  ready(status?: string): void;
  stopping(status?: string): void;
  /** Send raw `KEY=value` lines. */
  send(...lines: string[]): Promise<void>;
  close(): void;
}

export function createSdNotifier(o: SdNotifyOptions = {}): SdNotifier {
  const env = o.env ?? process.env;
  const socket = env.NOTIFY_SOCKET;
  const pid = o.pid ?? process.pid;
  const usec = Number(env.WATCHDOG_USEC);
  const forUs = env.WATCHDOG_PID === undefined || Number(env.WATCHDOG_PID) === pid;
  const watchdogMs = socket && Number.isFinite(usec) && usec > 0 && forUs ? Math.max(1, Math.floor(usec / 2000)) : 0;
  let timer: NodeJS.Timeout | undefined;
  let reported = false;
  const fail = (message: string) => {
    if (reported) return;
    reported = true;
    o.onError?.(message);
  };
  const send = (...lines: string[]): Promise<void> => {
    if (!socket) return Promise.resolve();
    return new Promise((resolve) => {
      const child = spawn(o.command ?? 'systemd-notify', lines, {
        env: { ...env, NOTIFY_SOCKET: socket },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      child.on('error', (err) => {
        fail(`cannot tell systemd (${(err as NodeJS.ErrnoException).code ?? err.message}): is systemd-notify installed?`);
        resolve();
      });
      child.on('close', (code) => {
        if (code !== 0) fail(`systemd-notify exited ${code}: ${stderr.trim().slice(0, 200)}`);
        resolve();
      });
    });
  };
  return {
    enabled: Boolean(socket),
    watchdogMs,
    send,
    ready(status) {
      if (!socket) return;
      void send('READY=1', `MAINPID=${pid}`, ...(status ? [`STATUS=${status}`] : []));
      if (watchdogMs > 0 && !timer) {
        let due = performance.now() + watchdogMs;
        timer = setInterval(() => {
          const now = performance.now();
          const lateMs = now - due;
          due = now + watchdogMs;
          // The mutation run's "sd-watchdog-health" mutant pings whatever the loop's state.
          if (controlActive('sd-watchdog-health')) {
            if (lateMs > watchdogMs) return o.onSkip?.(`the event loop was blocked for ${Math.round(lateMs + watchdogMs)} ms`);
            if (o.healthy && !o.healthy()) return o.onSkip?.('the control loop reports itself unhealthy');
          }
          void send('WATCHDOG=1');
        }, watchdogMs);
        timer.unref();
      }
    },
    stopping(status) {
      if (!socket) return;
      if (timer) clearInterval(timer);
      timer = undefined;
      void send('STOPPING=1', ...(status ? [`STATUS=${status}`] : []));
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
