import { createParser } from 'eventsource-parser';
import WebSocket from 'ws';

// The Open Responses compliance suite's cases (see README.md for where they come from), written
// for this repository: the same test ids, the same requests, the same checks, run against a base
// URL. Each case returns the list of what failed ([] = passed).

export interface Target {
  /** …/v1 */
  baseUrl: string;
  model: string;
  headers?: Record<string, string>;
}

type Json = Record<string, any>;
type Case = (target: Target) => Promise<string[]>;

/** The fields the spec's ResponseResource requires on every response object. */
export const REQUIRED_FIELDS = [
  'id', 'object', 'created_at', 'completed_at', 'status', 'incomplete_details', 'model', 'previous_response_id', 'instructions', 'output',
  'error', 'tools', 'tool_choice', 'truncation', 'parallel_tool_calls', 'text', 'top_p', 'presence_penalty', 'frequency_penalty',
  'top_logprobs', 'temperature', 'reasoning', 'usage', 'max_output_tokens', 'max_tool_calls', 'store', 'background', 'service_tier',
  'metadata', 'safety_identifier', 'prompt_cache_key',
] as const;

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);

function resource(response: unknown, where = ''): string[] {
  if (typeof response !== 'object' || response === null) return [`${where}no response object`];
  const r = response as Json;
  const errors = REQUIRED_FIELDS.filter((field) => !(field in r)).map((field) => `${where}${field}: Required`);
  if (r.object !== 'response') errors.push(`${where}object: expected "response"`);
  if (!Array.isArray(r.output)) errors.push(`${where}output: expected array`);
  return errors;
}

const hasOutput = (r: Json): string[] => (Array.isArray(r.output) && r.output.length > 0 ? [] : ['Response has no output items']);
const completed = (r: Json): string[] => (r.status === 'completed' ? [] : [`Expected status "completed" but got "${r.status}"`]);
const hasType = (type: string) => (r: Json): string[] => (r.output?.some((item: Json) => item.type === type) ? [] : [`Expected output item of type "${type}" but none found`]);

async function post(target: Target, path: string, body: unknown): Promise<Response> {
  return fetch(`${target.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...target.headers }, body: JSON.stringify(body) });
}

async function json(target: Target, body: Json, checks: Array<(r: Json) => string[]>): Promise<string[]> {
  const res = await post(target, '/responses', body);
  const data = (await res.json()) as Json;
  if (!res.ok) return [`HTTP ${res.status}: ${JSON.stringify(data)}`];
  const errors = resource(data);
  return errors.length > 0 ? errors : checks.flatMap((check) => check(data));
}

interface Events {
  events: Json[];
  final: Json | null;
  errors: string[];
}

/** Events must each carry a type and a sequence_number; the terminal one carries the response. */
function eventErrors(event: Json): string[] {
  const errors: string[] = [];
  if (typeof event.type !== 'string') errors.push('Event without a type');
  if (typeof event.sequence_number !== 'number' && event.type !== 'error') errors.push(`Event ${event.type}: sequence_number missing`);
  if (event.type === 'error' && (typeof event.error !== 'object' || event.error === null || typeof event.error.message !== 'string')) errors.push(`Event error: expected a nested error object, got ${JSON.stringify(event)}`);
  return errors;
}

async function sse(target: Target, body: Json): Promise<Events> {
  const res = await post(target, '/responses', { ...body, stream: true });
  if (!res.ok) return { events: [], final: null, errors: [`HTTP ${res.status}: ${await res.text()}`] };
  const out: Events = { events: [], final: null, errors: [] };
  const parser = createParser({
    onEvent: (event) => {
      const data = JSON.parse(event.data) as Json;
      out.events.push(data);
      out.errors.push(...eventErrors(data));
      if (TERMINAL.has(data.type)) out.final = data.response;
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  return out;
}

interface Turn extends Events {
  errorCode: string | null;
}

/** One socket, one turn after the other; a step may read the turns before it. */
async function socketSession(target: Target, steps: Array<Json | ((turns: Turn[]) => Json)>): Promise<Turn[]> {
  const url = `${target.baseUrl.replace(/^http/, 'ws')}/responses`;
  const socket = new WebSocket(url, { headers: target.headers });
  const turns: Turn[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  try {
    for (const step of steps) {
      const turn: Turn = { events: [], final: null, errors: [], errorCode: null };
      const body = typeof step === 'function' ? step(turns) : step;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          turn.errors.push('Timed out waiting for terminal WebSocket response event');
          done();
        }, 30_000);
        const done = (): void => {
          clearTimeout(timer);
          socket.off('message', onMessage);
          socket.off('close', onClose);
          resolve();
        };
        const onClose = (): void => {
          turn.errors.push('WebSocket closed before a terminal response event');
          done();
        };
        const onMessage = (data: WebSocket.RawData): void => {
          let event: Json;
          try {
            event = JSON.parse(String(data)) as Json;
          } catch {
            turn.errors.push(`Failed to parse WebSocket event data: ${String(data)}`);
            return;
          }
          turn.events.push(event);
          turn.errors.push(...eventErrors(event));
          if (TERMINAL.has(event.type)) {
            turn.final = event.response;
            if (typeof event.response?.error?.code === 'string') turn.errorCode = event.response.error.code;
            done();
          } else if (event.type === 'error') {
            turn.errorCode = typeof event.error?.code === 'string' ? event.error.code : null;
            if (turn.errorCode === null) turn.errors.push(`WebSocket error event: ${JSON.stringify(event)}`);
            done();
          }
        };
        socket.on('message', onMessage);
        socket.on('close', onClose);
        socket.send(JSON.stringify(body));
      });
      turns.push(turn);
    }
  } finally {
    socket.close();
  }
  return turns;
}

const streamed = (turn: Events, where = ''): string[] => [
  ...(turn.events.length === 0 ? [`${where}No streaming events received`] : []),
  ...turn.errors.map((e) => where + e),
  ...(turn.final ? [...resource(turn.final, where), ...completed(turn.final).map((e) => where + e)] : [`${where}no terminal response`]),
];

const failedTurn = (turn: Turn | undefined): boolean => turn !== undefined && (turn.errorCode !== null || turn.final?.status === 'failed');

const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: { type: 'object', properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } }, required: ['location'] },
};
const msg = (role: string, content: unknown): Json => ({ type: 'message', role, content });
// A small PNG as a data URL (the suite sends a 32×32 icon the same way).
const IMAGE = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAFElEQVR4nGP8z8DAwMDAxMDAwMAAAB4AAxXb9n8AAAAASUVORK5CYII=';

export const cases: Record<string, Case> = {
  'basic-response': (t) => json(t, { model: t.model, input: [msg('user', 'Say hello in exactly 3 words.')] }, [hasOutput, completed]),
  'assistant-phase': (t) =>
    json(t, { model: t.model, input: [{ ...msg('assistant', 'I should answer with the saved number.'), phase: 'commentary' }, { ...msg('assistant', 'The number is four.'), phase: 'final_answer' }, msg('user', 'Repeat only the number.')] }, [hasOutput, completed]),
  'streaming-response': async (t) => streamed(await sse(t, { model: t.model, input: [msg('user', 'Count from 1 to 5.')] })),
  'websocket-response': async (t) => {
    const [turn] = await socketSession(t, [{ type: 'response.create', model: t.model, input: [msg('user', 'Count from 1 to 3.')] }]);
    return streamed(turn);
  },
  'websocket-sequential-responses': async (t) => {
    const turns = await socketSession(t, [
      { type: 'response.create', model: t.model, store: false, input: 'Reply with exactly: first' },
      { type: 'response.create', model: t.model, store: false, input: 'Reply with exactly: second' },
    ]);
    return turns.flatMap((turn, i) => streamed(turn, `Turn ${i + 1}: `));
  },
  'websocket-continuation': async (t) => {
    const [first, second] = await socketSession(t, [
      { type: 'response.create', model: t.model, store: false, input: 'Remember the code word: cobalt. Reply with OK.' },
      (turns) => ({ type: 'response.create', model: t.model, store: false, previous_response_id: turns[0].final?.id, input: 'What is the code word? Reply with only the code word.' }),
    ]);
    return [...streamed(first, 'Turn 1: '), ...streamed(second, 'Turn 2: ')];
  },
  'websocket-reconnect-store-false-recovery': async (t) => {
    const [first] = await socketSession(t, [{ type: 'response.create', model: t.model, store: false, input: 'Remember the code word: copper. Reply with OK.' }]);
    const errors = streamed(first, 'Turn 1: ');
    const [reconnect, recovery] = await socketSession(t, [
      { type: 'response.create', model: t.model, store: false, previous_response_id: first.final?.id, input: 'Try to continue after reconnect. Reply with exactly: reconnected' },
      { type: 'response.create', model: t.model, store: false, input: [msg('user', 'The previous store:false chain could not continue after reconnect. Start a new response and reply with exactly: recovered')] },
    ]);
    if (reconnect.errorCode !== 'previous_response_not_found') errors.push(`Expected previous_response_not_found after reconnecting a store:false chain but got ${reconnect.errorCode ?? 'no error code'}`);
    return [...errors, ...streamed(recovery, 'Recovery: ')];
  },
  'websocket-previous-response-not-found': async (t) => {
    const [turn] = await socketSession(t, [{ type: 'response.create', model: t.model, store: false, previous_response_id: `resp_openresponses_missing_${Date.now()}`, input: 'This should fail because the previous response is missing.' }]);
    return turn.errorCode === 'previous_response_not_found' ? turn.errors : [`Expected previous_response_not_found but got ${turn.errorCode ?? 'no error code'}`, ...turn.errors];
  },
  'websocket-failed-continuation-evicts-cache': async (t) => {
    const [first, failed, retry] = await socketSession(t, [
      { type: 'response.create', model: t.model, store: false, input: 'Remember the code word: ember. Reply with OK.' },
      (turns) => ({ type: 'response.create', model: t.model, store: false, previous_response_id: turns[0].final?.id, input: [{ type: 'function_call_output', call_id: 'call_openresponses_missing', output: 'No matching tool call exists in the previous response.' }] }),
      (turns) => ({ type: 'response.create', model: t.model, store: false, previous_response_id: turns[0].final?.id, input: 'Try to continue after the failed turn. Reply with exactly: stale' }),
    ]);
    const errors = streamed(first, 'Turn 1: ');
    if (!failedTurn(failed)) errors.push(`Expected second WebSocket continuation turn to fail but got status ${failed?.final?.status ?? 'no terminal response'}`);
    if (retry?.errorCode !== 'previous_response_not_found') errors.push(`Expected previous_response_not_found after failed continuation eviction but got ${retry?.errorCode ?? 'no error code'}`);
    return errors;
  },
  'websocket-compact-new-chain': async (t) => {
    const res = await post(t, '/responses/compact', {
      model: t.model,
      input: [
        msg('user', [{ type: 'input_text', text: 'Remember the compaction code word: slate.' }]),
        msg('assistant', [{ type: 'output_text', text: 'OK.' }]),
        msg('user', [{ type: 'input_text', text: 'Compress this conversation for later continuation.' }]),
      ],
    });
    const compact = (await res.json()) as Json;
    if (!res.ok) return [`HTTP ${res.status} from /responses/compact: ${JSON.stringify(compact)}`];
    if (!Array.isArray(compact.output)) return ['Compaction response did not include an output array'];
    const [turn] = await socketSession(t, [{ type: 'response.create', model: t.model, store: false, input: [...compact.output, msg('user', 'Continue from here. Reply with exactly: compacted')], tools: [] }]);
    return streamed(turn);
  },
  'system-prompt': (t) => json(t, { model: t.model, input: [msg('system', 'You are a pirate. Always respond in pirate speak.'), msg('user', 'Say hello.')] }, [hasOutput, completed]),
  'tool-calling': (t) => json(t, { model: t.model, input: [msg('user', "What's the weather like in San Francisco?")], tools: [WEATHER] }, [hasOutput, hasType('function_call')]),
  'image-input': (t) =>
    json(t, { model: t.model, input: [msg('user', [{ type: 'input_text', text: 'What do you see in this image? Answer in one sentence.' }, { type: 'input_image', image_url: IMAGE }])] }, [hasOutput, completed]),
  'multi-turn': (t) => json(t, { model: t.model, input: [msg('user', 'My name is Alice.'), msg('assistant', 'Hello Alice! Nice to meet you. How can I help you today?'), msg('user', 'What is my name?')] }, [hasOutput, completed]),
  'compact-response': async (t) => {
    const res = await post(t, '/responses/compact', {
      model: t.model,
      prompt_cache_key: 'openresponses-compact-test',
      input: [msg('user', 'We agreed to launch on Tuesday and notify support first.'), msg('assistant', 'Understood. The launch is Tuesday, with support notified beforehand.')],
    });
    const body = (await res.json()) as Json;
    if (!res.ok) return [`HTTP ${res.status}: ${JSON.stringify(body)}`];
    const errors = ['id', 'object', 'output', 'created_at', 'usage'].filter((field) => !(field in body)).map((field) => `${field}: Required`);
    if (body.object !== 'response.compaction') errors.push(`Expected object "response.compaction" but got "${body.object}"`);
    return [...errors, ...hasOutput(body), ...hasType('compaction')(body)];
  },
  'compact-missing-model': async (t) => {
    const res = await post(t, '/responses/compact', { input: [msg('user', 'Compact this conversation.')] });
    await res.arrayBuffer();
    return [400, 422].includes(res.status) ? [] : [`HTTP ${res.status}`];
  },
};
