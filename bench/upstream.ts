import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { childReady } from './child-ready.mjs';

// A fast local OpenAI-compatible upstream with a fixed answer (child process of the bench).
//   POST <prefix>/v1/chat/completions
//     prefix ""       → a native tool call (get_weather {"city":"Paris","unit":"celsius"})
//     prefix "/slow"  → like "", streams with BENCH_SLOW_MS between chunks (for 1,000-stream runs)
//     prefix "/burst" → like "", but the whole stream goes out in one write (an upstream or a
//                       buffering hop that delivers many events per read)
//   JSON unless the body says "stream":true; then SSE with BENCH_SSE_CHUNKS data events (+ a usage
//   event when include_usage was asked) and [DONE]: 20 + 2 = the 22 events by default.
// Answers are prebuilt buffers: the upstream must cost as little CPU as possible (2 shared cores).

const SSE_CHUNKS = Math.max(4, Number(process.env.BENCH_SSE_CHUNKS ?? 20));
const SLOW_CHUNKS = Math.max(4, Number(process.env.BENCH_SLOW_CHUNKS ?? 20));
const SLOW_MS = Math.max(0, Number(process.env.BENCH_SLOW_MS ?? 50));

const ID = 'chatcmpl-bench0001';
const CREATED = 1_700_000_000;
const MODEL = 'bench-model';
const ARGS = '{"city":"Paris","unit":"celsius"}';
const USAGE = { prompt_tokens: 412, completion_tokens: 23, total_tokens: 435 };

function completion(message: Record<string, unknown>, finish: string): Buffer {
  return Buffer.from(
    JSON.stringify({ id: ID, object: 'chat.completion', created: CREATED, model: MODEL, choices: [{ index: 0, message, logprobs: null, finish_reason: finish }], usage: USAGE }),
  );
}

// Every answer gets its own call id, as real upstreams do (toolgate's call ledger keys on them).
const ID_MARK = 'call_00000000000000000000000000';
const [JSON_HEAD, JSON_TAIL] = completion(
  { role: 'assistant', content: null, tool_calls: [{ id: ID_MARK, type: 'function', function: { name: 'get_weather', arguments: ARGS } }] },
  'tool_calls',
)
  .toString()
  .split(ID_MARK);
let callCounter = 0;
const nextCallId = (): string => `call_${(++callCounter).toString(36).padStart(24, '0')}`;
const jsonNative = (): Buffer => Buffer.from(JSON_HEAD + nextCallId() + JSON_TAIL);

function frame(payload: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(payload)}\n\n`);
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): Buffer {
  return frame({ id: ID, object: 'chat.completion.chunk', created: CREATED, model: MODEL, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
}

/**
 * `count` data events: a role event, content tokens, the tool call header, argument fragments and
 * a finish event — what a tool-calling model streams. Content goes through toolgate's text-call
 * extractor, the tool call through its native normalization.
 */
function sseFrames(count: number): Buffer[] {
  // Tokens as GPT-style tokenizers cut them: the space leads (" me"), so prose deltas need no change.
  const words = 'Let me look up the current weather in Paris for you, one moment please.'.split(/(?= )/);
  const middle = count - 3; // role, header, finish
  const contentCount = Math.max(1, Math.floor(middle / 2));
  const argCount = Math.max(1, middle - contentCount);
  const frames: Buffer[] = [chunk({ role: 'assistant', content: '' })];
  for (let i = 0; i < contentCount; i++) frames.push(chunk({ content: words[i % words.length] }));
  frames.push(chunk({ tool_calls: [{ index: 0, id: ID_MARK, type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
  const size = Math.ceil(ARGS.length / argCount);
  for (let i = 0; i < argCount; i++) {
    const piece = ARGS.slice(i * size, (i + 1) * size);
    frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  frames.push(chunk({}, 'tool_calls'));
  return frames;
}

const USAGE_FRAME = frame({ id: ID, object: 'chat.completion.chunk', created: CREATED, model: MODEL, choices: [], usage: USAGE });
const DONE_FRAME = Buffer.from('data: [DONE]\n\n');
const FAST_FRAMES = sseFrames(SSE_CHUNKS);
const SLOW_FRAMES = sseFrames(SLOW_CHUNKS);

let activeStreams = 0;
let peakStreams = 0;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, body: Buffer): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

/** delayMs < 0: every frame in one write (burst); 0: one frame per tick; > 0: one per delay. */
function sendStream(res: ServerResponse, frames: readonly Buffer[], withUsage: boolean, delayMs: number): void {
  activeStreams++;
  if (activeStreams > peakStreams) peakStreams = activeStreams;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const all = [...frames, ...(withUsage ? [USAGE_FRAME] : []), DONE_FRAME];
  const header = frames.findIndex((f) => f.includes(ID_MARK));
  all[header] = Buffer.from(all[header].toString().replace(ID_MARK, nextCallId()));
  let i = 0;
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    activeStreams--;
  };
  res.once('close', finish);
  if (delayMs < 0) {
    res.end(Buffer.concat(all));
    finish();
    return;
  }
  const next = (): void => {
    if (res.destroyed) return finish();
    if (i === all.length - 1) {
      res.end(all[i]);
      return finish();
    }
    res.write(all[i++]);
    // One event per tick (or per delay): frames reach the gateway as separate reads, like tokens.
    if (delayMs > 0) setTimeout(next, delayMs);
    else setImmediate(next);
  };
  next();
}

const server = createServer(async (req, res) => {
  const url = req.url ?? '';
  const body = await readBody(req);
  if (req.method !== 'POST' || !url.endsWith('/v1/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":null}}');
    return;
  }
  const stream = body.includes('"stream":true');
  const withUsage = body.includes('"include_usage":true');
  if (url.startsWith('/slow/')) {
    if (stream) sendStream(res, SLOW_FRAMES, withUsage, SLOW_MS);
    else setTimeout(() => sendJson(res, jsonNative()), SLOW_MS * SLOW_CHUNKS);
    return;
  }
  const burst = url.startsWith('/burst/');
  if (stream) sendStream(res, FAST_FRAMES, withUsage, burst ? -1 : 0);
  else sendJson(res, jsonNative());
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;

process.on('message', (message: unknown) => {
  const type = (message as { type?: unknown } | null)?.type;
  if (type === 'stats') process.send?.({ type: 'stats', activeStreams, peakStreams });
  if (type === 'reset-stats') {
    peakStreams = activeStreams;
    process.send?.({ type: 'reset-stats' });
  }
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  childReady(`http://127.0.0.1:${port}`, { sseChunks: SSE_CHUNKS, slowChunks: SLOW_CHUNKS, slowMs: SLOW_MS }, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
