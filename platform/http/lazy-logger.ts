/**
 * The request's logger, made when the request first logs. Fastify gives every request a child of the server's
 * logger bound to its request id; pino's `child` was ~3 µs of every status read (a third of what fastify itself
 * costs per request), and almost no request logs. `lazyChildLogger` is fastify's `childLoggerFactory`: it
 * answers a stand-in whose log methods and `child` make the real child (same bindings, same options) on their
 * first call and hand over to it; reading or setting any other property makes it at once and uses the real one.
 */
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogFn = (...args: unknown[]) => void;

/**
 * Below the stand-in's own methods, anything else it is asked (`level`, `isLevelEnabled`, `bindings`, ...): a
 * proxy at the end of its prototype chain, so the methods fastify checks on every request are found without a
 * trap. The receiver is the stand-in; its state is in private fields, which never reach the prototype chain.
 */
const fallback = new Proxy<object>(
  {},
  {
    get(_t, prop, stand: StandIn) {
      const real = stand.real();
      const v = Reflect.get(real, prop, real);
      return typeof v === 'function' ? v.bind(real) : v;
    },
    set: (_t, prop, value, stand: StandIn) => Reflect.set(stand.real(), prop, value),
  },
);
class Fallback {}
Object.setPrototypeOf(Fallback.prototype, fallback);

class StandIn extends Fallback {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Record<string, unknown>;
  readonly #opts: Record<string, unknown>;
  #real: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Record<string, unknown>, opts: Record<string, unknown>) {
    super();
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }

  /** The real child: made on the first call, the same one afterwards. */
  real(): FastifyBaseLogger {
    this.#real ??= this.#parent.child(this.#bindings, this.#opts);
    return this.#real;
  }

  #log(level: Level, args: unknown[]): void {
    (this.real()[level] as LogFn)(...args);
  }
  fatal(...args: unknown[]) {
    this.#log('fatal', args);
  }
  error(...args: unknown[]) {
    this.#log('error', args);
  }
  warn(...args: unknown[]) {
    this.#log('warn', args);
  }
  info(...args: unknown[]) {
    this.#log('info', args);
  }
  debug(...args: unknown[]) {
    this.#log('debug', args);
  }
  trace(...args: unknown[]) {
    this.#log('trace', args);
  }
  child(bindings: Record<string, unknown>, opts?: Record<string, unknown>): FastifyBaseLogger {
    return this.real().child(bindings, opts);
  }
}

export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, opts) =>
  new StandIn(logger, bindings, opts as Record<string, unknown>) as unknown as FastifyBaseLogger;
