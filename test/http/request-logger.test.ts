import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import t from 'tap';
import { lazyChildLogger } from '../../src/http/request-logger.js';

function sink(): { logger: FastifyBaseLogger; lines: string[]; children: () => number } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'info', base: { service: 'x' }, timestamp: false }, stream) as unknown as FastifyBaseLogger;
  let made = 0;
  const child = logger.child.bind(logger);
  logger.child = (bindings, options) => {
    made++;
    return child(bindings, options);
  };
  return { logger, lines, children: () => made };
}

const drain = () => new Promise((resolve) => setImmediate(resolve));

t.test('the same lines as an eager child, the child made only at the first enabled line', async (t) => {
  const eager = sink();
  const lazy = sink();
  const write = (log: FastifyBaseLogger & { setBindings?(b: Record<string, unknown>): void }) => {
    log.debug('below the level');
    log.trace({ a: 1 }, 'below too');
    log.setBindings?.({ trace_id: 't1' });
    log.info({ n: 1 }, 'first');
    log.warn('second %s', 'arg');
    log.child({ sub: true }).error('from a grandchild');
  };
  const eagerChild = eager.logger.child({ reqId: 'req_1' }, {});
  write(eagerChild as FastifyBaseLogger & { setBindings(b: Record<string, unknown>): void });
  const lazyChild = lazyChildLogger(lazy.logger, { reqId: 'req_1' }, {});
  t.equal(lazy.children(), 0, 'no pino child yet');
  write(lazyChild as FastifyBaseLogger & { setBindings(b: Record<string, unknown>): void });
  await drain();
  t.same(lazy.lines, eager.lines, 'identical lines, bindings (reqId, then trace ids) included');
  t.equal(lazy.lines.length, 3);
});

t.test('a request that writes nothing at an enabled level never builds a child', async (t) => {
  const { logger, lines, children } = sink();
  const log = lazyChildLogger(logger, { reqId: 'req_2' }, {});
  log.debug('no');
  log.trace('no');
  log.silent('no');
  t.equal(log.level, 'info', 'the parent level');
  t.equal(children(), 0);
  log.error('yes');
  log.error('again');
  t.equal(children(), 1, 'one child, at the first enabled line');
  await drain();
  t.equal(lines.length, 2);
  t.match(JSON.parse(lines[0]), { reqId: 'req_2', msg: 'yes', service: 'x' });
});

t.test('a per-route level gets the eager child', async (t) => {
  const { logger, children } = sink();
  const log = lazyChildLogger(logger, { reqId: 'req_3' }, { level: 'debug' });
  t.equal(children(), 1);
  t.equal(log.level, 'debug');
});
