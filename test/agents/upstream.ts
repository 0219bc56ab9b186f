// The emulated upstream the agents reach through toolgate, on 127.0.0.1: it plays the task of
// ./task.ts in whichever wire format the route speaks, and logs every request and answer.
//   /native/v1/chat/completions  tool calls as OpenAI `tool_calls` (also /native/v1/responses, for
//                                toolgate's native relay of the Responses API on `openai` providers)
//   /hermes/v1/chat/completions  calls written as text: <tool_call>{"name":…,"arguments":…}</tool_call>
//   /xml/v1/chat/completions     calls written as text: Qwen3-Coder <tool_call><function=…><parameter=…>
//   Gemini                       the repo's Gemini emulator (validation, thought signatures) with this script
// Chat bodies are checked with the OpenAI emulator's rules (OpenAI's own 400s). A `deepseek` model
// answers DeepSeek's 400 when a tool-call message of the current turn comes back without its
// reasoning_content: the `reason` task's round trip.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkChatRequest } from '../emulators/openai-rules.js';
import { answer, newSignature, startGeminiEmulator, usage, type GeminiEmulator, type GeminiScript } from '../emulators/gemini-server.js';
import { nextMove, taskIn, type Move, type ToolView } from './task.js';

type Json = Record<string, any>;
export type TextFormat = 'native' | 'hermes' | 'xml';

export interface ScriptedUpstream {
  /** e.g. http://127.0.0.1:4100/native/v1 */
  baseUrl(format: TextFormat): string;
  geminiBaseUrl: string;
  geminiKey: string;
  close(): Promise<void>;
}

const SIDE_ANSWER = 'ok';
const id = (prefix: string): string => `${prefix}${randomBytes(12).toString('hex')}`;

/** The reply to one request, from its tools and history, or a short answer to a side request. */
function moveFor(tools: ToolView[], started: boolean, body: Json, reasoningComesBack = true): Move | { text: string; side: true } {
  const text = JSON.stringify(body);
  const task = taskIn(text);
  if (!task || tools.length === 0) return { text: SIDE_ANSWER, side: true };
  return nextMove(task, tools, started, text, reasoningComesBack);
}

// ---- chat completions ---------------------------------------------------------------------------

function chatTools(body: Json): ToolView[] {
  return (Array.isArray(body.tools) ? body.tools : []).filter((t: Json) => t?.function?.name).map((t: Json) => ({ name: t.function.name, parameters: t.function.parameters ?? {} }));
}

const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));

/** An assistant message follows the last user message that carries the task. */
function chatStarted(messages: Json[]): boolean {
  let taskAt = -1;
  messages.forEach((m, n) => {
    if (m.role === 'user' && taskIn(textOf(m.content))) taskAt = n;
  });
  return taskAt >= 0 && messages.slice(taskAt + 1).some((m) => m.role === 'assistant');
}

function deepseekRefusal(body: Json): Json | null {
  if (!/deepseek/i.test(String(body.model))) return null;
  const messages: Json[] = body.messages ?? [];
  let lastUser = -1;
  messages.forEach((m, n) => {
    if (m.role === 'user') lastUser = n;
  });
  const index = messages.findIndex((m, n) => n > lastUser && m.role === 'assistant' && m.tool_calls?.length && !m.reasoning_content);
  if (index < 0) return null;
  return { error: { message: `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } };
}

function writtenCall(format: TextFormat, name: string, args: Json): string {
  if (format === 'hermes') return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
  const params = Object.entries(args).map(([key, value]) => `<parameter=${key}>\n${typeof value === 'string' ? value : JSON.stringify(value)}\n</parameter>\n`);
  return `<tool_call>\n<function=${name}>\n${params.join('')}</function>\n</tool_call>`;
}

interface ChatAnswer {
  content: string | null;
  reasoning?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  finish: 'stop' | 'tool_calls';
}

function chatAnswer(format: TextFormat, move: Move): ChatAnswer {
  if ('text' in move) return { content: move.text, finish: 'stop' };
  const { name, args } = move.call;
  const reasoning = move.reasoning;
  if (format === 'native') return { content: null, reasoning, toolCalls: [{ id: id('call_'), name, arguments: JSON.stringify(args) }], finish: 'tool_calls' };
  return { content: `I will use ${name}.\n${writtenCall(format, name, args)}`, reasoning, finish: 'stop' };
}

function sendChat(res: ServerResponse, body: Json, reply: ChatAnswer): Json {
  const base = { id: id('chatcmpl-'), object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model };
  const usageBlock = { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 };
  const toolCalls = reply.toolCalls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  if (!body.stream) {
    const message = { role: 'assistant', content: reply.content, ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}), ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    const completion = { ...base, choices: [{ index: 0, message, finish_reason: reply.finish, logprobs: null }], usage: usageBlock };
    send(res, 200, completion);
    return completion;
  }
  const chunk = (delta: Json, finish: string | null = null): Json => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const chunks: Json[] = [chunk({ role: 'assistant', content: '' })];
  if (reply.reasoning) chunks.push(chunk({ reasoning_content: reply.reasoning }));
  // Text in two pieces, split inside a marker, as a model's tokens would split it.
  if (reply.content) {
    const half = Math.ceil(reply.content.length / 2);
    chunks.push(chunk({ content: reply.content.slice(0, half) }), chunk({ content: reply.content.slice(half) }));
  }
  toolCalls?.forEach((call, index) => {
    const half = Math.ceil(call.function.arguments.length / 2);
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) } }] }));
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] }));
  });
  chunks.push(chunk({}, reply.finish));
  if (body.stream_options?.include_usage) chunks.push({ ...base, object: 'chat.completion.chunk', choices: [], usage: usageBlock });
  sendEvents(res, chunks.map((c) => ({ data: c })), true);
  return { stream: chunks };
}

// ---- Responses (native relay on `openai` providers) -----------------------------------------------

function responsesTools(body: Json): ToolView[] {
  const flat = (tools: Json[], namespace?: string): ToolView[] =>
    tools.flatMap((t) => (t?.type === 'namespace' && Array.isArray(t.tools) ? flat(t.tools, t.name) : t?.type === 'function' && t.name ? [{ name: t.name, parameters: t.parameters ?? {}, ...(namespace ? { namespace } : {}) }] : []));
  return flat(Array.isArray(body.tools) ? body.tools : []);
}

function responsesStarted(body: Json): boolean {
  const input: Json[] = Array.isArray(body.input) ? body.input : [];
  let taskAt = -1;
  input.forEach((item, n) => {
    if ((item.role === 'user' || item.type === 'message') && item.role !== 'assistant' && taskIn(JSON.stringify(item.content ?? ''))) taskAt = n;
  });
  return taskAt >= 0 && input.slice(taskAt + 1).some((item) => item.role === 'assistant' || item.type === 'function_call' || item.type === 'custom_tool_call');
}

function sendResponses(res: ServerResponse, body: Json, move: Move): Json {
  const output: Json[] = [];
  if ('call' in move) {
    if (move.reasoning) output.push({ type: 'reasoning', id: id('rs_'), summary: [{ type: 'summary_text', text: move.reasoning }], encrypted_content: `enc-${move.reasoning}` });
    const namespace = move.call.namespace ? { namespace: move.call.namespace } : {};
    output.push({ type: 'function_call', id: id('fc_'), call_id: id('call_'), name: move.call.name, ...namespace, arguments: JSON.stringify(move.call.args), status: 'completed' });
  } else {
    output.push({ type: 'message', id: id('msg_'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: move.text, annotations: [] }] });
  }
  const response = { id: id('resp_'), object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model: body.model, output, usage: { input_tokens: 50, output_tokens: 10, total_tokens: 60, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } };
  if (!body.stream) {
    send(res, 200, response);
    return response;
  }
  const events: Json[] = [{ type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }];
  output.forEach((item, index) => {
    events.push({ type: 'response.output_item.added', output_index: index, item });
    if (item.type === 'message') events.push({ type: 'response.output_text.delta', output_index: index, item_id: item.id, content_index: 0, delta: item.content[0].text });
    events.push({ type: 'response.output_item.done', output_index: index, item });
  });
  events.push({ type: 'response.completed', response });
  sendEvents(res, events.map((event, n) => ({ event: event.type, data: { ...event, sequence_number: n } })), false);
  return { stream: events };
}

// ---- Gemini ---------------------------------------------------------------------------------------

function geminiScript(log: (entry: Json) => void): GeminiScript {
  return ({ model, body, issuedSignatures }) => {
    log({ route: 'gemini', model, body });
    const tools: ToolView[] = (body.tools ?? []).flatMap((t: Json) => t.functionDeclarations ?? []).map((d: Json) => ({ name: d.name, parameters: d.parameters ?? d.parametersJsonSchema ?? {} }));
    const contents: Json[] = body.contents ?? [];
    let taskAt = -1;
    contents.forEach((c, n) => {
      if (c.role !== 'model' && taskIn(JSON.stringify(c.parts ?? []))) taskAt = n;
    });
    const started = taskAt >= 0 && contents.slice(taskAt + 1).some((c) => c.role === 'model');
    // Gemini takes no reasoning text back: its thought signatures are what must come back, and the
    // emulator refuses a gemini-3 function call without one.
    const move = moveFor(tools, started, body, false);
    const parts: Json[] = [];
    if ('call' in move) {
      if (move.reasoning) parts.push({ text: move.reasoning, thought: true });
      parts.push({ functionCall: { name: move.call.name, args: move.call.args }, thoughtSignature: newSignature(issuedSignatures) });
    } else parts.push({ text: move.text });
    const response = answer(parts, 'STOP', usage(50, 10));
    log({ route: 'gemini', answer: response });
    return { response };
  };
}

// ---- the server -----------------------------------------------------------------------------------

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

function sendEvents(res: ServerResponse, events: { event?: string; data: Json }[], done: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { event, data } of events) res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  if (done) res.write('data: [DONE]\n\n');
  res.end();
}

async function readJson(req: IncomingMessage): Promise<Json | undefined> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as Json;
  } catch {
    return undefined;
  }
}

const ROUTE = /^\/(native|hermes|xml)\/v1\/(chat\/completions|responses|models)$/;

/** Starts the upstream; every request and answer goes to `logFile()` (JSON lines), read per call so that each run has its own log. */
export async function startScriptedUpstream(logFile: () => string, apiKey: string): Promise<ScriptedUpstream> {
  const log = (entry: Json): void => appendFileSync(logFile(), `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
  const gemini: GeminiEmulator = await startGeminiEmulator({ script: geminiScript(log) });
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log({ error: String(err) });
      if (!res.headersSent) send(res, 500, { error: { message: String(err), type: 'server_error' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = ROUTE.exec((req.url ?? '').split('?')[0]);
    const body = await readJson(req);
    log({ method: req.method, url: req.url, body });
    if (req.headers.authorization !== `Bearer ${apiKey}`) return reply(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    if (!match) return reply(404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
    const format = match[1] as TextFormat;
    if (match[2] === 'models') return reply(200, { object: 'list', data: [] });
    if (!body) return reply(400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error' } });
    if (match[2] === 'responses') {
      const move = moveFor(responsesTools(body), responsesStarted(body), body);
      return void log({ answer: sendResponses(res, body, move) });
    }
    const refusal = checkChatRequest(body);
    if (refusal) return reply(refusal.status, refusal.body);
    const deepseek = deepseekRefusal(body);
    if (deepseek) return reply(400, deepseek);
    const move = moveFor(chatTools(body), chatStarted(body.messages ?? []), body);
    log({ answer: sendChat(res, body, chatAnswer(format, move)) });

    function reply(status: number, payload: Json): void {
      log({ status, answer: payload });
      send(res, status, payload);
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: (format) => `http://127.0.0.1:${port}/${format}/v1`,
    geminiBaseUrl: gemini.baseUrl,
    geminiKey: gemini.apiKey,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gemini.close();
    },
  };
}
