import type { FastifyBaseLogger } from 'fastify';

// Fastify gives every request a child logger (reqId bound). Building a pino child costs every
// request time and garbage, yet most requests log nothing at the configured level (the access line
// is written from the app logger's level check, errors and warnings are rare). This child is made
// the first time a line at an enabled level is written, with the same bindings: the lines are the
// same as the eager child's.

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
/** What the parent must offer for a lazy child (pino does); anything else gets an eager child. */
type Parent = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
type Writer = (...args: unknown[]) => void;

class LazyChildLogger {
  private real: FastifyBaseLogger | undefined;
  private bindings: Bindings;

  constructor(
    private readonly parent: Parent,
    bindings: Bindings,
    private readonly options: ChildOptions,
  ) {
    this.bindings = bindings;
  }

  private logger(): FastifyBaseLogger {
    this.real ??= this.parent.child(this.bindings, this.options);
    return this.real;
  }

  private write(level: Level, args: unknown[]): void {
    if (this.real === undefined && !this.parent.isLevelEnabled(level)) return;
    const logger = this.logger();
    (logger[level] as Writer).apply(logger, args);
  }

  get level(): string {
    return this.real ? this.real.level : this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {
    // nothing, like pino's silent
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  /** pino's setBindings (tracing adds trace ids to the request's lines): kept for the child to come, or passed on. */
  setBindings(bindings: Bindings): void {
    if (this.real === undefined) {
      this.bindings = { ...this.bindings, ...bindings };
      return;
    }
    (this.real as FastifyBaseLogger & { setBindings(bindings: Bindings): void }).setBindings(bindings);
  }
}

/** Fastify's childLoggerFactory: a request logger whose pino child is made at its first enabled line. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildOptions): FastifyBaseLogger {
  const parent = logger as Partial<Parent>;
  // A per-route level, or a parent without level checks: the plain eager child.
  if ((options && Object.keys(options).length > 0) || typeof parent.isLevelEnabled !== 'function') return logger.child(bindings, options);
  return new LazyChildLogger(logger as Parent, bindings, options) as unknown as FastifyBaseLogger;
}
