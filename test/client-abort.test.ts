import t from 'tap';
import { Pool } from 'undici';
import { ClientAbort, type AbortSignalLike } from '../src/client-abort.js';
import { startRawUpstream } from './helpers/raw-upstream.js';

// ClientAbort stands in for an AbortController on every request: the same observable behaviour
// for what the gateway and undici do with the signal, checked side by side with the real thing.

type Controller = { signal: AbortSignalLike; abort(): void };

/** One script of adds, removes and aborts; what the listeners and the signal show, in order. */
function trace(controller: Controller): string[] {
  const seen: string[] = [];
  const signal = controller.signal;
  const a = (): void => void seen.push(`a aborted=${signal.aborted}`);
  const b = (): void => void seen.push('b');
  const c = (): void => void seen.push('c');
  const removesC = (): void => {
    seen.push('removesC');
    signal.removeEventListener('abort', c);
    signal.addEventListener('abort', () => seen.push('added during the abort'));
  };
  signal.addEventListener('abort', a, { once: true });
  signal.addEventListener('abort', a); // the same listener twice runs once
  signal.addEventListener('abort', b);
  signal.removeEventListener('abort', b);
  signal.removeEventListener('abort', () => undefined); // never added: nothing happens
  signal.addEventListener('abort', removesC);
  signal.addEventListener('abort', c);
  seen.push(`before aborted=${signal.aborted} reason=${String(signal.reason)}`);
  controller.abort();
  controller.abort(); // a second abort does nothing
  signal.addEventListener('abort', () => seen.push('added after the abort'));
  const reason = signal.reason as DOMException;
  seen.push(`after aborted=${signal.aborted} reason=${reason instanceof DOMException} ${reason.name} ${reason.message} ${reason.code}`);
  return seen;
}

t.test('ClientAbort behaves as an AbortController for abort listeners, `aborted` and `reason`', async (t) => {
  const expected = trace(new AbortController());
  t.same(trace(new ClientAbort()), expected);
  t.same(expected.slice(1, 3), ['a aborted=true', 'removesC'], 'the reference ran the listeners in order');
});

t.test('a throwing listener does not stop the others, and its error is uncaught (as EventTarget)', async (t) => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => void uncaught.push(error);
  const listeners = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', onUncaught);
  t.teardown(() => {
    process.removeListener('uncaughtException', onUncaught);
    for (const listener of listeners) process.on('uncaughtException', listener);
  });
  const abort = new ClientAbort();
  const ran: string[] = [];
  abort.signal.addEventListener('abort', () => {
    throw new Error('boom');
  });
  abort.signal.addEventListener('abort', () => void ran.push('second'));
  abort.abort();
  t.same(ran, ['second']);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal((uncaught[0] as Error | undefined)?.message, 'boom');
});

t.test('undici takes it as a request signal: aborting cancels the upstream request with an AbortError', async (t) => {
  const upstream = await startRawUpstream(() => undefined); // never answers
  const pool = new Pool(upstream.url);
  t.teardown(async () => {
    await pool.destroy();
    await upstream.close();
  });
  const abort = new ClientAbort();
  const pending = pool.request({ method: 'POST', path: '/v1/chat/completions', body: '{}', signal: abort.signal as AbortSignal });
  while (upstream.hits === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  abort.abort();
  const error = (await pending.catch((caught: unknown) => caught)) as Error;
  t.equal(error.name, 'AbortError');
  t.equal(error, abort.reason, 'the signal reason, as with an AbortController');
  t.equal(await upstream.closedEarly, true, 'the upstream connection was cut');
});

t.test('undici removes its listener once the response is read (nothing left on a finished request)', async (t) => {
  const upstream = await startRawUpstream((_req, res) => res.end('{}'));
  const pool = new Pool(upstream.url);
  t.teardown(async () => {
    await pool.close();
    await upstream.close();
  });
  const abort = new ClientAbort();
  const added: Array<() => void> = [];
  const removed: Array<() => void> = [];
  const add = abort.addEventListener.bind(abort);
  const remove = abort.removeEventListener.bind(abort);
  abort.addEventListener = (type, listener) => {
    added.push(listener);
    add(type, listener);
  };
  abort.removeEventListener = (type, listener) => {
    removed.push(listener);
    remove(type, listener);
  };
  const response = await pool.request({ method: 'POST', path: '/', body: '{}', signal: abort.signal as AbortSignal });
  await response.body.text();
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(added.length, 1, 'undici added one listener');
  t.same(removed, added, 'and removed it');
});

// A request holds its ClientAbort for its whole life (a stream's too), usually with one listener
// (undici's): the list was made empty and pushed into, which gives it room for 17. Counted in heap
// bytes per signal, no timing.
t.test('a signal with one listener holds a list of one', async (t) => {
  const { settledHeap } = await import('./helpers/heap.js');
  const listener = (): void => undefined;
  const count = 5000;
  const held: ClientAbort[] = new Array<ClientAbort>(count);
  const before = await settledHeap();
  for (let i = 0; i < count; i++) {
    const abort = new ClientAbort();
    abort.addEventListener('abort', listener);
    held[i] = abort;
  }
  const perSignal = ((await settledHeap()) - before) / count;
  t.ok(perSignal < 160, `${perSignal.toFixed(0)} bytes per signal with one listener`);
  held[0].addEventListener('abort', () => undefined);
  held[0].addEventListener('abort', listener);
  let calls = 0;
  held[0].addEventListener('abort', () => calls++);
  held[0].abort();
  t.equal(calls, 1, 'more listeners still run, each once');
});
