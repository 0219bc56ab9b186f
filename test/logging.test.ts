import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger, withBindings } from '../src/logging.js';

// withBindings: the request's log lines carry the trace fields (tracing on), without a second
// child logger per request and without touching the shared root logger.

function capture(): { lines: Array<Record<string, unknown>>; destination: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { lines, destination };
}

t.test('a per-request child gets the fields in place', async (t) => {
  const { lines, destination } = capture();
  const root = createLogger({ level: 'info', secrets: [], destination });
  const request = root.child({ reqId: 'req_1' });
  const bound = withBindings(request, { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) }, root);
  t.equal(bound, request, 'no new logger');
  request.info('hello');
  root.info('startup');
  t.match(lines[0], { reqId: 'req_1', trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), msg: 'hello' });
  t.notOk('trace_id' in lines[1], 'the root logger is untouched');
});

t.test('the shared root logger is never bound in place: a child is returned', async (t) => {
  const { lines, destination } = capture();
  const root = createLogger({ level: 'info', secrets: [], destination });
  const bound = withBindings(root, { trace_id: 'c'.repeat(32) }, root);
  t.not(bound, root);
  bound.info('traced');
  root.info('plain');
  t.equal(lines[0].trace_id, 'c'.repeat(32));
  t.notOk('trace_id' in lines[1]);
});
