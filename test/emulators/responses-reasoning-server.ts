// An OpenAI /v1/responses upstream of a reasoning model for `store: false` conversations, JSON and
// SSE, as the API documents them: with `include: ["reasoning.encrypted_content"]` each reasoning
// item of the output carries `encrypted_content`, the only way its reasoning survives without a
// store. In the input:
// - a reasoning item without encrypted_content is looked up by id, which cannot work without a
//   store: 404 "Item with id 'rs_…' not found. Items are not persisted when `store` is set to
//   false. Try again with `store` set to true, or remove this item from your input."
//   (openai/openai-agents-js#546);
// - encrypted_content it never issued: 400 "The encrypted content for item rs_… could not be verified."
// - a function call whose reasoning item is missing is accepted, but the model has lost that
//   reasoning: `reasoningKept` records, per request, whether every call of the current turn came
//   with the reasoning it was answered with.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startRuleServer } from './rule-server.js';

type Obj = Record<string, any>;

export interface ResponsesReasoningEmulator {
  url: string;
  requests: Obj[];
  /** Per request: whether each call of the current turn came back with its reasoning item. */
  reasoningKept: boolean[];
  close(): Promise<void>;
}

const id = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

export async function startResponsesReasoningEmulator(options: { steps?: number } = {}): Promise<ResponsesReasoningEmulator> {
  const steps = options.steps ?? 2;
  const requests: Obj[] = [];
  const reasoningKept: boolean[] = [];
  /** encrypted_content → reasoning item id; call id → the reasoning item id it was answered with. */
  const issued = new Map<string, string>();
  const reasoningOfCall = new Map<string, string>();

  function check(body: Obj): { status: number; body: unknown } | null {
    const input: Obj[] = Array.isArray(body.input) ? body.input : [];
    for (const item of input) {
      if (item?.type !== 'reasoning') continue;
      if (typeof item.encrypted_content !== 'string') {
        if (body.store === false) {
          return { status: 404, body: { error: { message: `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, type: 'invalid_request_error', param: 'input', code: null } } };
        }
      } else if (issued.get(item.encrypted_content) !== item.id) {
        return { status: 400, body: { error: { message: `The encrypted content for item ${item.id} could not be verified.`, type: 'invalid_request_error', param: null, code: 'invalid_encrypted_content' } } };
      }
    }
    return null;
  }

  function output(body: Obj): Obj[] {
    const input: Obj[] = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input;
    let start = 0;
    for (let i = input.length - 1; i >= 0; i--) if (input[i].type === 'message' && input[i].role === 'user') { start = i + 1; break; }
    const turn = input.slice(start);
    const seen = new Set(turn.filter((i) => i.type === 'reasoning').map((i) => i.id));
    const calls = turn.filter((i) => i.type === 'function_call');
    reasoningKept.push(calls.every((call) => seen.has(reasoningOfCall.get(call.call_id))));
    const encrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
    const reasoning: Obj = { id: id('rs'), type: 'reasoning', summary: [] };
    if (encrypted) {
      reasoning.encrypted_content = `gAAAAB${randomBytes(24).toString('base64url')}`;
      issued.set(reasoning.encrypted_content, reasoning.id);
    }
    if (calls.length >= steps) return [reasoning, { id: id('msg'), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: `Done after ${calls.length} calls.`, annotations: [], logprobs: [] }] }];
    const call = { id: id('fc'), type: 'function_call', status: 'completed', call_id: `call_${randomBytes(9).toString('hex')}`, name: body.tools?.[0]?.name ?? 'lookup', arguments: JSON.stringify({ q: `step ${calls.length + 1}` }) };
    reasoningOfCall.set(call.call_id, reasoning.id);
    return [reasoning, call];
  }

  function response(body: Obj, items: Obj[]): Obj {
    const now = Math.floor(Date.now() / 1000);
    return {
      id: id('resp'), object: 'response', created_at: now, status: 'completed', completed_at: now, error: null, incomplete_details: null,
      model: body.model, output: items, store: body.store !== false, parallel_tool_calls: true, tool_choice: 'auto', tools: body.tools ?? [],
      usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 50 },
    };
  }

  function send(res: ServerResponse, body: Obj, items: Obj[]): void {
    const done = response(body, items);
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(done));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let sequence = 0;
    const event = (type: string, data: Obj) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence++ })}\n\n`);
    event('response.created', { response: { ...done, status: 'in_progress', output: [], completed_at: null } });
    items.forEach((item, index) => {
      event('response.output_item.added', { output_index: index, item });
      event('response.output_item.done', { output_index: index, item });
    });
    event('response.completed', { response: done });
    res.end();
  }

  const server = await startRuleServer(requests, { refusal: (body) => check(body), answer: (res, body) => send(res, body, output(body)) });
  return { url: server.url, requests, reasoningKept, close: () => server.close() };
}
