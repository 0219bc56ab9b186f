import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { configFor, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startRawUpstream, type RawUpstream } from '../helpers/raw-upstream.js';

// A gateway in front of one hand-written upstream that answers whatever the test sets, as JSON or
// as SSE (the text in small pieces), under three providers: `native` (type openai), `open` (an
// OpenAI-compatible server of open models) and `off` (compatible, `textCalls: off`).

export const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] } },
} as const;

export interface UpstreamAnswer {
  content?: string | null;
  toolCalls?: Array<{ id?: string; name: string; arguments: string; index?: number }>;
  finish?: string;
  /** Stream only: leave `role` out of every delta (some providers do). */
  noRole?: boolean;
}

export interface AnswerRig {
  gateway: TestGateway;
  upstream: RawUpstream;
  /** What the upstream answers next (to every request until changed). */
  answer: UpstreamAnswer;
  /** The last request body the upstream got. */
  lastBody: Record<string, unknown> | undefined;
  client: OpenAI;
  close(): Promise<void>;
}

export async function startAnswerRig(more = ''): Promise<AnswerRig> {
  const rig = { answer: { content: 'ok' } as UpstreamAnswer, lastBody: undefined as Record<string, unknown> | undefined };
  const upstream = await startRawUpstream((_req, res, body) => {
    const request = JSON.parse(body) as Record<string, unknown>;
    rig.lastBody = request;
    const answer = rig.answer;
    if (request.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseFor(answer));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(jsonFor(answer)));
  });
  const gateway = await startGateway({
    yaml: configFor(
      {
        native: { type: 'openai', baseUrl: upstream.baseURL, apiKey: 'sk-native-0000' },
        open: { baseUrl: upstream.baseURL, apiKey: 'hf-open-0000' },
        off: { baseUrl: upstream.baseURL, apiKey: 'hf-off-0000', extra: '    textCalls: off\n' },
      },
      more,
    ),
    logLevel: 'warn',
  });
  const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'client-key', maxRetries: 0 });
  return Object.assign(rig, { gateway, upstream, client, close: async () => (await gateway.close(), await upstream.close()) });
}

function jsonFor(answer: UpstreamAnswer): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.content ?? null };
  if (answer.toolCalls) message.tool_calls = answer.toolCalls.map((c, i) => ({ id: c.id ?? `call_up${i}aaaaaaaaaaaaaaaaaaaaa`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  return { id: 'chatcmpl-up', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: answer.finish ?? (answer.toolCalls ? 'tool_calls' : 'stop') }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } };
}

function sseFor(answer: UpstreamAnswer): string {
  const frames: unknown[] = [];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
  const role = answer.noRole ? {} : { role: 'assistant' };
  frames.push(chunk({ ...role, content: '' }));
  const text = answer.content ?? '';
  // Pieces of 1 to 7 characters, by code point.
  const chars = [...text];
  for (let at = 0, n = 0; at < chars.length; n++) {
    const size = 1 + (n % 7);
    frames.push(chunk({ content: chars.slice(at, at + size).join('') }));
    at += size;
  }
  (answer.toolCalls ?? []).forEach((c, i) => {
    const index = c.index ?? i;
    frames.push(chunk({ tool_calls: [{ index, id: c.id ?? `call_up${i}aaaaaaaaaaaaaaaaaaaaa`, type: 'function', function: { name: c.name, arguments: '' } }] }));
    const half = Math.floor(c.arguments.length / 2);
    for (const piece of [c.arguments.slice(0, half), c.arguments.slice(half)]) if (piece) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  frames.push(chunk({}, answer.finish ?? (answer.toolCalls ? 'tool_calls' : 'stop')));
  frames.push({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
  return frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('') + 'data: [DONE]\n\n';
}

export interface ClientView {
  status: number;
  headers: Headers;
  content: string | null;
  calls: Array<{ name: string; arguments: string }>;
  finish: string | null;
  functionCall?: { name: string; arguments: string };
}

/** The answer as a plain client sees it over HTTP (JSON). */
export async function askJson(rig: AnswerRig, body: Record<string, unknown>): Promise<ClientView> {
  const res = await fetch(`${rig.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' }, body: JSON.stringify({ ...body, stream: false }) });
  const json = (await res.json()) as { choices?: Array<{ message: { content: string | null; tool_calls?: Array<{ function: { name: string; arguments: string } }>; function_call?: { name: string; arguments: string } }; finish_reason: string | null }> };
  const choice = json.choices?.[0];
  return {
    status: res.status,
    headers: res.headers,
    content: choice?.message.content ?? null,
    calls: (choice?.message.tool_calls ?? []).map((c) => ({ name: c.function.name, arguments: c.function.arguments })),
    finish: choice?.finish_reason ?? null,
    ...(choice?.message.function_call ? { functionCall: choice.message.function_call } : {}),
  };
}

/** The answer as the openai SDK's stream helpers assemble it (chat.completions.stream → finalChatCompletion). */
export async function askStream(rig: AnswerRig, body: Record<string, unknown>): Promise<ClientView & { completion: ChatCompletion }> {
  const stream = rig.client.chat.completions.stream({ ...(body as unknown as Parameters<OpenAI['chat']['completions']['stream']>[0]), stream: true });
  const completion = await stream.finalChatCompletion();
  const choice = completion.choices[0];
  const message = choice.message as typeof choice.message & { function_call?: { name: string; arguments: string } | null };
  return {
    status: 200,
    headers: new Headers(),
    content: message.content,
    calls: (message.tool_calls ?? []).map((c) => (c.type === 'function' ? { name: c.function.name, arguments: c.function.arguments } : { name: '', arguments: '' })),
    finish: choice.finish_reason,
    ...(message.function_call ? { functionCall: message.function_call } : {}),
    completion,
  };
}
