import { Writable } from 'node:stream';
import t from 'tap';
import { chooseLogFormat, createLogger, withBindings } from '../src/logging.js';

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

t.test('the log format: LOG_FORMAT, then the config, then pretty on a terminal and JSON elsewhere', async (t) => {
  t.equal(chooseLogFormat('auto', {}, true), 'pretty', 'a person at a terminal');
  t.equal(chooseLogFormat('auto', {}, false), 'json', 'a pipe, a container, a log shipper');
  t.equal(chooseLogFormat('json', {}, true), 'json', 'the config can ask for JSON on a terminal');
  t.equal(chooseLogFormat('pretty', {}, false), 'pretty');
  t.equal(chooseLogFormat('auto', { LOG_FORMAT: 'json' }, true), 'json', 'the environment wins');
  t.equal(chooseLogFormat('json', { LOG_FORMAT: ' Pretty ' }, false), 'pretty');
  t.equal(chooseLogFormat('auto', { LOG_FORMAT: 'xml' }, false), 'json', 'an unknown LOG_FORMAT is ignored');
});

t.test('pretty lines are readable, and secrets stay out of them as out of JSON', async (t) => {
  const secret = 'sk-pretty-secret-0001';
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString('utf8');
      callback();
    },
  });
  const log = createLogger({ level: 'info', secrets: [secret], destination, format: 'pretty' });
  log.info({ req: { headers: { authorization: 'Bearer abc-token' } }, provider: 'openai' }, `calling with ${secret}`);
  log.warn({ err: new Error(`upstream said ${secret}`) }, 'upstream failed');
  // pino-pretty's stream formats on the next turns of the event loop.
  for (let turn = 0; turn < 50 && !text.includes('upstream failed'); turn++) await new Promise((resolve) => setImmediate(resolve));
  const lines = text.split('\n').filter(Boolean);
  t.match(lines[0], /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(toolgate\): calling with \[REDACTED\]$/, 'time, level, name, message on one line');
  t.notOk(text.trimStart().startsWith('{'), 'not JSON');
  t.match(text, /provider: "openai"/, 'fields below the line');
  t.match(text, /WARN \(toolgate\): upstream failed/);
  t.notMatch(text, secret, 'the configured secret is scrubbed from the printed text');
  t.notMatch(text, 'abc-token', 'the Authorization header is redacted');
  t.match(text, /"authorization": "\[REDACTED\]"/);
});
