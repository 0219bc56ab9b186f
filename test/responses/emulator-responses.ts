// An OpenAI Responses API emulator on 127.0.0.1:<random> for the native (passthrough) path:
// POST /v1/responses (JSON and SSE), GET/DELETE /v1/responses/:id. It keeps state like OpenAI
// (previous_response_id, item ids, item_reference), refuses what OpenAI refuses with its wording,
// and answers from a script that sees the full resolved context (previous chain + input).
//
// Wording sources (2025–2026 issue threads quoting the API):
// - "Previous response with id 'resp_…' not found." 400 invalid_request_error, param previous_response_id,
//   code previous_response_not_found (bigduu/Bamboo-agent#513, maximhq/bifrost#2441, pydantic-ai ws tests);
// - "Item with id 'msg_…' not found." 404 (item_reference / ids of unstored items);
// - "No tool call found for function call output with call_id call_…." 400, param input;
// - chat-shaped tools on /responses: "Missing required parameter: 'tools[0].name'.".
// An item without `type` is read as an EasyInputMessage (the spec's default branch), so
// `{call_id, output}` is refused for its missing `role`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fail, invalidJsonBody, missingApiKey, incorrectApiKey, missingParam, invalidValue, type RuleFailure } from '../emulators/openai-errors.js';

export interface EmulatedCall {
  name: string;
  arguments: Record<string, unknown> | string;
  call_id?: string;
}
export type ResponsesReply =
  | { text?: string; toolCalls?: EmulatedCall[]; reasoning?: boolean; incomplete?: boolean }
  | { error: { status: number; body: unknown } };
export interface ScriptContext {
  body: any;
  /** Everything the model sees: previous_response_id chain, then this input (references resolved). */
  items: any[];
  tools: any[];
}
export type ResponsesScript = (context: ScriptContext, callIndex: number) => ResponsesReply | Promise<ResponsesReply>;

export interface ResponsesEmulator {
  url: string;
  requests: Array<{ method: string; path: string; body: any }>;
  readonly calls: number;
  setScript(script: ResponsesScript): void;
  close(): Promise<void>;
}

const hex = (n: number): string => randomBytes(n).toString('hex');
const id = (prefix: string): string => `${prefix}_${hex(24)}`;
const callId = (): string => `call_${randomBytes(18).toString('base64url').slice(0, 24)}`;
const ROLES = ['user', 'assistant', 'system', 'developer'];
const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('') : '';

/** Default: call the first tool once for the last user message, then quote the outputs. */
export const weatherResponses: ResponsesScript = ({ items, tools }) => {
  const last = items[items.length - 1];
  if (last?.type === 'function_call_output') return { text: `Here is what I found: ${items.filter((i) => i.type === 'function_call_output').map((i) => textOf(i.output) || i.output).join('; ')}` };
  const user = [...items].reverse().find((i) => i.type === 'message' && i.role === 'user');
  const fn = tools.find((t) => t.type === 'function');
  const city = /\b(?:in|for)\s+([A-Z][\w-]*)/.exec(textOf(user?.content))?.[1] ?? 'Paris';
  if (fn) return { toolCalls: [{ name: fn.name, arguments: { city } }] };
  return { text: `You said: ${textOf(user?.content)}` };
};

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${hex(16)}`, 'openai-version': '2020-10-01' });
  res.end(text);
}

export interface ResponsesEmulatorOptions {
  apiKey?: string;
  script?: ResponsesScript;
  /** The stream's bytes for its events, as reads (default: `event: <type>` and one `data:` line each). */
  reshape?: (events: readonly Record<string, unknown>[]) => Buffer[];
}

export async function startResponsesEmulator(options: ResponsesEmulatorOptions = {}): Promise<ResponsesEmulator> {
  const requests: ResponsesEmulator['requests'] = [];
  const responses = new Map<string, { response: any; context: any[] }>();
  const items = new Map<string, any>();
  let script = options.script ?? weatherResponses;
  let calls = 0;

  /** Validates and resolves the input against the stored state; a failure or the full context. */
  function resolve(body: any): RuleFailure | { context: any[]; own: any[] } {
    if (typeof body.model !== 'string' || body.model === '') return missingParam('model');
    const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
    for (let i = 0; i < tools.length; i++) {
      const tool = tools[i] as any;
      if (tool?.type === 'function' && typeof tool.name !== 'string') return missingParam(`tools[${i}].name`);
    }
    let context: any[] = [];
    if (body.previous_response_id != null) {
      const prev = responses.get(body.previous_response_id);
      if (!prev) return fail(`Previous response with id '${body.previous_response_id}' not found.`, 'previous_response_id', 'previous_response_not_found');
      context = prev.context.slice();
    }
    const input: any[] = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
    const own: any[] = [];
    for (let i = 0; i < input.length; i++) {
      let item = input[i];
      if (!isObj(item)) return fail(`Invalid type for 'input[${i}]': expected an object, but got ${typeof item} instead.`, `input[${i}]`, 'invalid_type');
      const type = item.type ?? (Object.keys(item).every((k) => k === 'id' || k === 'type') && typeof item.id === 'string' ? 'item_reference' : 'message');
      if (type === 'item_reference' || (type === 'reasoning' && !item.encrypted_content && typeof item.id === 'string' && !item.summary?.length)) {
        const found = items.get(item.id);
        if (!found) return fail(`Item with id '${item.id}' not found.`, 'input', null, 404);
        item = found;
      } else if (type === 'message') {
        if (item.role === undefined) return missingParam(`input[${i}].role`);
        if (!ROLES.includes(item.role)) return invalidValue(`input[${i}].role`, item.role, ROLES);
        if (item.content === undefined) return missingParam(`input[${i}].content`);
        item = { ...item, type };
      } else if (type === 'function_call') {
        for (const key of ['call_id', 'name', 'arguments']) if (typeof item[key] !== 'string') return missingParam(`input[${i}].${key}`);
      } else if (type === 'function_call_output') {
        if (typeof item.call_id !== 'string') return missingParam(`input[${i}].call_id`);
        if (item.output === undefined) return missingParam(`input[${i}].output`);
        const seen = [...context, ...own].some((c) => c.type === 'function_call' && c.call_id === item.call_id);
        if (!seen) return fail(`No tool call found for function call output with call_id ${item.call_id}.`, 'input', null);
      } else if (type !== 'reasoning') {
        return invalidValue(`input[${i}].type`, type, ['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference']);
      }
      own.push(item);
    }
    return { context: [...context, ...own], own };
  }

  function buildOutput(reply: Exclude<ResponsesReply, { error: unknown }>): any[] {
    const output: any[] = [];
    if (reply.reasoning) output.push({ id: id('rs'), type: 'reasoning', summary: [] });
    if (reply.text !== undefined) {
      output.push({ id: id('msg'), type: 'message', status: reply.incomplete ? 'incomplete' : 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text: reply.text }], role: 'assistant' });
    }
    for (const c of reply.toolCalls ?? []) {
      output.push({ id: id('fc'), type: 'function_call', status: 'completed', arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments), call_id: c.call_id ?? callId(), name: c.name });
    }
    return output;
  }

  function responseObject(body: any, rid: string, status: string, output: any[], usage?: any): any {
    const now = Math.floor(Date.now() / 1000);
    return {
      id: rid, object: 'response', created_at: now, status, background: false, billing: { payer: 'developer' },
      completed_at: status === 'completed' ? now : null, error: null,
      incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      instructions: body.instructions ?? null, max_output_tokens: body.max_output_tokens ?? null, max_tool_calls: null,
      model: `${body.model}-2025-04-14`, output, parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null, prompt_cache_key: null, reasoning: { effort: null, summary: null },
      safety_identifier: null, service_tier: 'default', store: body.store !== false, temperature: body.temperature ?? 1,
      text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: body.tool_choice ?? 'auto',
      tools: (body.tools ?? []).map((t: any) => (t.type === 'function' ? { description: null, parameters: null, strict: true, ...t } : t)),
      top_logprobs: 0, top_p: body.top_p ?? 1, truncation: 'disabled', ...(usage ? { usage } : {}), user: null, metadata: body.metadata ?? {},
    };
  }

  async function create(res: ServerResponse, raw: string): Promise<void> {
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      const f = invalidJsonBody();
      return send(res, f.status, f.body);
    }
    const resolved = resolve(body);
    if ('status' in resolved) return send(res, resolved.status, resolved.body);
    const reply = await script({ body, items: resolved.context, tools: body.tools ?? [] }, calls++);
    if ('error' in reply) return send(res, reply.error.status, reply.error.body);
    const output = buildOutput(reply);
    const status = reply.incomplete ? 'incomplete' : 'completed';
    const inputTokens = Math.ceil(JSON.stringify(resolved.context).length / 4);
    const outputTokens = Math.max(1, Math.ceil(JSON.stringify(output).length / 8));
    const usage = { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + outputTokens };
    const rid = id('resp');
    const response = responseObject(body, rid, status, output, usage);
    if (body.store !== false) {
      responses.set(rid, { response, context: [...resolved.context, ...output] });
      for (const item of [...resolved.own, ...output]) if (typeof item.id === 'string') items.set(item.id, item);
    }
    if (body.stream !== true) return send(res, 200, response);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const events = [...streamEvents(body, rid, output, response)];
    if (options.reshape) {
      for (const piece of options.reshape(events)) await new Promise<void>((resolve) => res.write(piece, () => resolve()));
    } else {
      for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    }
    res.end();
  }

  function* streamEvents(body: any, rid: string, output: any[], final: any): Generator<any> {
    let seq = 0;
    const ev = (e: any): any => ({ ...e, sequence_number: seq++ });
    const start = responseObject(body, rid, 'in_progress', []);
    yield ev({ type: 'response.created', response: start });
    yield ev({ type: 'response.in_progress', response: start });
    for (const [index, item] of output.entries()) {
      const base = { item_id: item.id, output_index: index };
      if (item.type === 'message') {
        const text: string = item.content[0].text;
        yield ev({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } });
        yield ev({ type: 'response.content_part.added', ...base, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
        for (const piece of text.match(/\S+\s*|\s+/g) ?? []) {
          yield ev({ type: 'response.output_text.delta', ...base, content_index: 0, delta: piece, logprobs: [], obfuscation: hex(4) });
        }
        yield ev({ type: 'response.output_text.done', ...base, content_index: 0, text, logprobs: [] });
        yield ev({ type: 'response.content_part.done', ...base, content_index: 0, part: item.content[0] });
      } else if (item.type === 'function_call') {
        yield ev({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
        for (let i = 0; i < item.arguments.length; i += 7) {
          yield ev({ type: 'response.function_call_arguments.delta', ...base, delta: item.arguments.slice(i, i + 7), obfuscation: hex(4) });
        }
        yield ev({ type: 'response.function_call_arguments.done', ...base, name: item.name, arguments: item.arguments });
      } else {
        yield ev({ type: 'response.output_item.added', output_index: index, item });
      }
      yield ev({ type: 'response.output_item.done', output_index: index, item });
    }
    yield ev({ type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response: final });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0];
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    requests.push({ method, path, body });
    if (options.apiKey !== undefined) {
      const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
      const f = !m ? missingApiKey() : m[1].trim() !== options.apiKey ? incorrectApiKey(m[1].trim()) : null;
      if (f) return send(res, f.status, f.body);
    }
    if (method === 'POST' && path === '/v1/responses') return create(res, raw);
    if (method === 'POST' && path === '/v1/responses/compact') {
      // OpenAI's shape: the user messages kept, then one opaque compaction item.
      const input = Array.isArray((body as { input?: unknown })?.input) ? (body as { input: any[] }).input : [];
      const users = input.filter((item) => item?.role === 'user').map((item, i) => ({ id: `msg_emu_${i}`, type: 'message', role: 'user', status: 'completed', content: typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content }));
      const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
      return send(res, 200, { id: 'resp_emu_compact', object: 'response.compaction', created_at: 1731459200, output: [...users, { id: 'cmp_emu', type: 'compaction', encrypted_content: 'gAAAA-opaque' }], usage });
    }
    const one = /^\/v1\/responses\/([^/]+)$/.exec(path);
    if (one) {
      const found = responses.get(one[1]);
      if (!found) return send(res, 404, fail(`Response with id '${one[1]}' not found.`, null, null, 404).body);
      if (method === 'DELETE') {
        responses.delete(one[1]);
        return send(res, 200, { id: one[1], object: 'response', deleted: true });
      }
      return send(res, 200, found.response);
    }
    send(res, 404, fail(`Invalid URL (${method} ${path})`, null, null, 404).body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => (res.headersSent ? res.destroy() : send(res, 500, fail('The server had an error processing your request.', null, null, 500, 'server_error').body)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get calls() {
      return calls;
    },
    setScript(next) {
      script = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
