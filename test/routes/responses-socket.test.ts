import t from 'tap';
import WebSocket from 'ws';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

// WebSocket mode on /v1/responses: one socket, response.create events in, the SSE stream's events
// out as JSON text frames; store: false chains kept in the socket's memory only; a failed turn
// evicts what it continued; bad frames get an error event and a close; the gateway key is checked
// on the upgrade; every turn takes the HTTP route (its access log line).

const KEY = 'tg-socket-key-0001';
const YAML = (more = ''): string => `server: {host: 127.0.0.1, port: 0${more}}
providers:
  simulator: {type: simulator}
auth:
  keys:
    - {key: ${KEY}, name: alpha}
`;

interface Session {
  socket: WebSocket;
  /** Every frame received so far, parsed. */
  frames: Array<Record<string, any>>;
  /** The frames of the next turn, up to its terminal or error event. */
  turn(event: Record<string, unknown>): Promise<Array<Record<string, any>>>;
  closed: Promise<{ code: number; reason: string }>;
}

async function open(gateway: TestGateway, key = KEY): Promise<Session> {
  const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${key}` } });
  const frames: Array<Record<string, any>> = [];
  const waiting: Array<() => void> = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)));
    for (const wake of waiting.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let read = 0;
  const next = async (): Promise<Record<string, any>> => {
    while (read >= frames.length) await new Promise<void>((resolve) => waiting.push(resolve));
    return frames[read++];
  };
  return {
    socket,
    frames,
    closed,
    async turn(event) {
      socket.send(JSON.stringify(event));
      const out: Array<Record<string, any>> = [];
      for (;;) {
        const frame = await next();
        out.push(frame);
        if (frame.type === 'error' || ['response.completed', 'response.failed', 'response.incomplete'].includes(frame.type)) return out;
      }
    },
  };
}

const terminal = (frames: Array<Record<string, any>>): Record<string, any> => frames[frames.length - 1];

t.test('response.create over one socket: the SSE events as JSON frames, turns in order, store: false chains on the socket', async (t) => {
  const gateway = await startGateway({ yaml: YAML() });
  t.teardown(() => gateway.close());
  const session = await open(gateway);
  t.teardown(() => session.socket.close());

  const first = await session.turn({ type: 'response.create', model: 'simulator/weather', store: false, input: 'Remember the code word: cobalt.' });
  t.same(first.map((f) => f.type).slice(0, 2), ['response.created', 'response.in_progress'], 'the stream opens as the SSE one does');
  t.equal(terminal(first).type, 'response.completed');
  t.same(first.map((f) => f.sequence_number), first.map((_f, i) => i), 'sequence numbers from 0, one per frame');
  const id = terminal(first).response.id as string;

  // Not stored: HTTP does not know it.
  const http = await fetch(`${gateway.url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${KEY}` } });
  t.equal(http.status, 404, 'a store: false response is not in the store');

  const second = await session.turn({ type: 'response.create', model: 'simulator/weather', store: false, previous_response_id: id, input: 'What was the code word?' });
  t.equal(terminal(second).type, 'response.completed', 'the socket continues its own store: false response');
  t.equal(terminal(second).response.previous_response_id, id);

  const other = await open(gateway);
  t.teardown(() => other.socket.close());
  const elsewhere = await other.turn({ type: 'response.create', model: 'simulator/weather', store: false, previous_response_id: id, input: 'Again?' });
  t.equal(terminal(elsewhere).type, 'error');
  t.equal(terminal(elsewhere).status, 400);
  t.equal(terminal(elsewhere).error.code, 'previous_response_not_found', 'another socket does not see it');
  t.equal(terminal(elsewhere).error.param, 'previous_response_id');
  const after = await other.turn({ type: 'response.create', model: 'simulator/weather', store: false, input: 'Start over.' });
  t.equal(terminal(after).type, 'response.completed', 'the socket stays open after an error event');

  const lines = gateway.logs.filter((line) => line.includes('"msg":"request"') && line.includes('"url":"/v1/responses"') && line.includes('"method":"POST"'));
  t.equal(lines.length, 4, 'each turn is a request of the HTTP route (one access log line each)');
});

t.test('a failed continuation evicts the response it continued', async (t) => {
  const gateway = await startGateway({ yaml: YAML() });
  t.teardown(() => gateway.close());
  const session = await open(gateway);
  t.teardown(() => session.socket.close());
  const first = await session.turn({ type: 'response.create', model: 'simulator/weather', store: false, input: 'Remember: ember.' });
  const id = terminal(first).response.id as string;
  const failed = await session.turn({ type: 'response.create', model: 'simulator/no-such-model', store: false, previous_response_id: id, input: 'Fail.' });
  t.equal(terminal(failed).type, 'error', 'the continuation fails');
  const retry = await session.turn({ type: 'response.create', model: 'simulator/weather', store: false, previous_response_id: id, input: 'Continue.' });
  t.equal(terminal(retry).error?.code, 'previous_response_not_found', 'after a failure the chain is gone from the socket');
});

t.test('the gateway key is checked on the upgrade', async (t) => {
  const gateway = await startGateway({ yaml: YAML() });
  t.teardown(() => gateway.close());
  const status = await new Promise<number>((resolve) => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/responses`, { headers: { authorization: 'Bearer wrong-key-000000' } });
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.on('open', () => resolve(101));
  });
  t.equal(status, 401);
});

t.test('bad frames: an error event, then the socket is closed', async (t) => {
  const gateway = await startGateway({ yaml: YAML() });
  t.teardown(() => gateway.close());
  for (const [name, send] of [
    ['not JSON', (s: WebSocket) => s.send('{nope')],
    ['binary', (s: WebSocket) => s.send(Buffer.from('{}'), { binary: true })],
    ['another event type', (s: WebSocket) => s.send(JSON.stringify({ type: 'session.update' }))],
  ] as const) {
    const session = await open(gateway);
    send(session.socket);
    const closed = await session.closed;
    t.equal(session.frames.length, 1, `${name}: one frame`);
    t.equal(session.frames[0].type, 'error');
    t.equal(session.frames[0].error.code, 'invalid_websocket_event', `${name}: ${session.frames[0].error.message}`);
    t.equal(closed.code, 1008, `${name}: closed 1008`);
  }
});

t.test('an invalid create body is an error event with the HTTP route’s error, the socket stays open', async (t) => {
  const gateway = await startGateway({ yaml: YAML() });
  t.teardown(() => gateway.close());
  const session = await open(gateway);
  t.teardown(() => session.socket.close());
  const bad = await session.turn({ type: 'response.create', input: 'no model' });
  t.equal(terminal(bad).type, 'error');
  t.equal(terminal(bad).status, 400);
  t.equal(terminal(bad).error.param, 'model');
  const background = await session.turn({ type: 'response.create', model: 'simulator/weather', background: true, input: 'x' });
  t.equal(terminal(background).error.code, 'unsupported_parameter');
  const good = await session.turn({ type: 'response.create', model: 'simulator/weather', input: 'hello', stream_id: 'lane_1' });
  t.equal(terminal(good).type, 'response.completed');
  t.ok(good.every((frame) => frame.stream_id === 'lane_1'), 'every event echoes the stream_id');
});

t.test('bounded: messages over the body limit close the socket (1009), queued turns are capped, idle sockets close', async (t) => {
  const gateway = await startGateway({ yaml: YAML(', bodyLimitBytes: 4096, websocket: {idleTimeoutMs: 200, maxQueued: 1}') });
  t.teardown(() => gateway.close());
  const big = await open(gateway);
  big.socket.send(JSON.stringify({ type: 'response.create', model: 'simulator/weather', input: 'x'.repeat(8192) }));
  t.equal((await big.closed).code, 1009, 'too large: closed by ws');

  const busy = await open(gateway);
  t.teardown(() => busy.socket.close());
  const event = JSON.stringify({ type: 'response.create', model: 'simulator/weather', input: 'hi' });
  for (let i = 0; i < 3; i++) busy.socket.send(event);
  const terminals = await new Promise<Array<Record<string, any>>>((resolve) => {
    const check = (): void => {
      const done = busy.frames.filter((f) => f.type === 'error' || f.type === 'response.completed');
      if (done.length >= 3) resolve(done);
      else setTimeout(check, 10);
    };
    check();
  });
  t.same(terminals.map((f) => f.type).sort(), ['error', 'response.completed', 'response.completed'], 'one running, one queued, the third refused');
  t.equal(terminals.find((f) => f.type === 'error')?.error.code, 'websocket_queue_full');
  const closed = await busy.closed;
  t.same(closed, { code: 1000, reason: 'idle timeout' }, 'an idle socket is closed');
});
