import type { RawChatMessage, ContentPart, MessageContent, ToolCall } from '../api/chat-types.js';
import { errors } from '../errors.js';
import type { LedgerSnapshot } from '../ledger/types.js';
import type { FindingKind } from './kinds.js';
import type { Finding, RepairPass } from './types.js';
import { contentText, finding, hasCalls, isRecord, MessageList, nonEmptyString } from './util.js';

// Pass 6: message shapes strict upstreams reject. Content must be a string (or clean parts) where
// required; parts echoed from responses carry stray keys (the @openai/agents bug); response-only
// fields (refusal, annotations, parsed, parsed_arguments, audio data) do not go back upstream.
// Text is moved, never dropped: a refusal or audio transcript becomes the content when it is empty.

/** Keys that response parts carry and request parts must not (kept: unknown keys like cache_control). */
const STRAY_PART_KEYS = new Set(['annotations', 'role', 'tool_calls', 'refusal', 'logprobs', 'id', 'status', 'parsed']);
const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);
const RESPONSE_ONLY = ['annotations', 'parsed'];
const CALL_LEAKS = ['index', 'status', 'call_id'];

type Note = { kind: FindingKind; detail: string };

function isPartLike(value: unknown): boolean {
  return typeof value === 'string' || (isRecord(value) && (typeof value.type === 'string' || typeof value.text === 'string'));
}

function cleanPart(part: unknown, role: string): ContentPart | null {
  if (typeof part === 'string') return { type: 'text', text: part };
  if (!isRecord(part)) return null;
  const type = part.type;
  if (typeof part.text === 'string' && (type === undefined || (typeof type === 'string' && TEXT_TYPES.has(type)))) {
    const keys = Object.keys(part);
    if (type === 'text' && !keys.some((key) => STRAY_PART_KEYS.has(key))) return null;
    const out: ContentPart = { type: 'text', text: part.text };
    for (const key of keys) if (key !== 'type' && key !== 'text' && !STRAY_PART_KEYS.has(key)) out[key] = part[key];
    return out;
  }
  if (type === 'refusal' && typeof part.refusal === 'string') {
    return role === 'assistant' ? null : { type: 'text', text: part.refusal };
  }
  if (type === 'input_image' && typeof part.image_url === 'string') {
    const detail = typeof part.detail === 'string' ? { detail: part.detail } : {};
    return { type: 'image_url', image_url: { url: part.image_url, ...detail } };
  }
  if (type === 'image_url' && typeof part.image_url === 'string') return { type: 'image_url', image_url: { url: part.image_url } };
  return null;
}

/** The fixed content, or `undefined` when it is fine as is. */
function fixContent(content: unknown, role: string, calls: boolean): { value: MessageContent | null; note: Note } | undefined {
  if (typeof content === 'string') return undefined;
  if (content === null || content === undefined) {
    if (role === 'assistant' && calls) return undefined;
    return { value: '', note: { kind: 'content_null', detail: `${role} content ${String(content)} → ""` } };
  }
  if (Array.isArray(content)) {
    if (content.every(isPartLike)) {
      let cleaned: ContentPart[] | null = null;
      for (let j = 0; j < content.length; j++) {
        const fixed = cleanPart(content[j], role);
        if (fixed === null) continue;
        cleaned ??= content.slice() as ContentPart[];
        cleaned[j] = fixed;
      }
      if (cleaned === null) return undefined;
      return { value: cleaned, note: { kind: 'content_parts_cleaned', detail: `${role} content parts cleaned` } };
    }
  }
  // Objects, numbers, non-part arrays: the JSON text (contentText keeps fingerprints equal).
  return { value: contentText(content), note: { kind: 'content_stringified', detail: `${role} content ${Array.isArray(content) ? 'array' : typeof content} → string` } };
}

function unnamedCall(index: number, j: number, call: Record<string, unknown>): Error {
  const id = nonEmptyString(call.id) ? call.id : '(none)';
  return errors.unrepairableHistory(
    `messages[${index}].tool_calls[${j}] has no function name, so it can neither be sent upstream nor matched to a result. ` +
      `toolgate looked for function.name, a top-level name, and the call ledger (no entry for id ${id}). ` +
      'Send the tool name the model called, or remove the call and its result.',
  );
}

/** One tool call in chat shape, or null when already fine. Throws when the name is unrecoverable. */
function fixCall(raw: unknown, index: number, j: number, ledger: LedgerSnapshot): ToolCall | null {
  if (!isRecord(raw)) {
    throw errors.unrepairableHistory(`messages[${index}].tool_calls[${j}] is ${JSON.stringify(raw)}, not a tool call object; toolgate cannot tell which tool it called.`);
  }
  if (raw.type === 'custom') return null; // custom-tool calls have their own shape
  const fn = raw.function;
  // Responses-style items ({type:"function_call", call_id, name, arguments}) land here too.
  const rawId = raw.id === undefined && nonEmptyString(raw.call_id) ? raw.call_id : raw.id;
  const id = typeof rawId === 'number' ? String(rawId) : rawId;
  const ok = raw.type === 'function' && isRecord(fn) && nonEmptyString(fn.name) && !('parsed_arguments' in fn) && id === raw.id && !CALL_LEAKS.some((key) => key in raw);
  if (ok) return null;
  const out: Record<string, unknown> = { ...raw, type: 'function', id };
  // Stream-delta `index`, Responses `status`/`call_id`: OpenAI refuses unknown keys in a tool call.
  for (const key of CALL_LEAKS) delete out[key];
  let name: unknown = isRecord(fn) ? fn.name : raw.name;
  let args: unknown = isRecord(fn) ? fn.arguments : raw.arguments;
  if (!nonEmptyString(name) && nonEmptyString(id)) {
    const known = ledger.byCallId.get(id)?.message.tool_calls?.find((call) => call.id === id);
    if (known) {
      name = known.function.name;
      if (args === undefined || args === '') args = known.function.arguments;
    }
  }
  if (!nonEmptyString(name)) throw unnamedCall(index, j, raw);
  const nextFn: Record<string, unknown> = isRecord(fn) ? { ...fn } : {};
  delete nextFn.parsed_arguments;
  nextFn.name = name;
  nextFn.arguments = args;
  if (!isRecord(fn)) {
    delete out.name;
    delete out.arguments;
  }
  out.function = nextFn;
  return out as ToolCall;
}

function fixAssistantFields(message: RawChatMessage, next: () => RawChatMessage, notes: Note[]): void {
  const emptyText = contentText(message.content).trim() === '';
  if ('refusal' in message) {
    const draft = next();
    if (nonEmptyString(message.refusal) && emptyText) draft.content = message.refusal;
    delete draft.refusal;
    notes.push({ kind: 'response_fields_removed', detail: emptyText && nonEmptyString(message.refusal) ? 'refusal moved to content' : 'refusal removed' });
  }
  const audio: unknown = message.audio;
  if ('audio' in message && !(isRecord(audio) && Object.keys(audio).length === 1 && nonEmptyString(audio.id))) {
    const draft = next();
    if (isRecord(audio) && typeof audio.transcript === 'string' && emptyText && !nonEmptyString(message.refusal)) draft.content = audio.transcript;
    if (isRecord(audio) && nonEmptyString(audio.id)) draft.audio = { id: audio.id };
    else delete draft.audio;
    notes.push({ kind: 'response_fields_removed', detail: 'audio reduced to {id} (transcript kept as content when empty)' });
  }
  const extra = RESPONSE_ONLY.filter((key) => key in message);
  if (extra.length > 0) {
    const draft = next();
    for (const key of extra) delete draft[key];
    notes.push({ kind: 'response_fields_removed', detail: `${extra.join(', ')} removed` });
  }
}

function fixCalls(message: RawChatMessage, index: number, ledger: LedgerSnapshot, next: () => RawChatMessage, notes: Note[]): void {
  if (!('tool_calls' in message)) return;
  const calls: unknown = message.tool_calls;
  if (!Array.isArray(calls) || calls.length === 0) {
    delete next().tool_calls;
    notes.push({ kind: 'tool_call_shape', detail: `empty tool_calls (${JSON.stringify(calls)}) removed` });
    return;
  }
  let fixed: ToolCall[] | null = null;
  for (let j = 0; j < calls.length; j++) {
    const call = fixCall(calls[j], index, j, ledger);
    if (call === null) continue;
    fixed ??= calls.slice() as ToolCall[];
    fixed[j] = call;
  }
  if (fixed !== null) {
    next().tool_calls = fixed;
    notes.push({ kind: 'tool_call_shape', detail: 'tool calls put in {id, type:"function", function:{name, arguments}} shape' });
  }
}

/** Cheap check for the common, already-valid message (the fast path for long valid histories). */
function plainlyValid(message: RawChatMessage): boolean {
  const content: unknown = message.content;
  switch (message.role) {
    case 'user':
    case 'system':
    case 'developer':
      return typeof content === 'string';
    case 'tool':
      return typeof content === 'string' && typeof message.tool_call_id !== 'number';
    case 'assistant': {
      const calls: unknown = message.tool_calls;
      if (calls === undefined) return typeof content === 'string' && !hasResponseFields(message);
      if (!Array.isArray(calls) || calls.length === 0) return false;
      if (!(typeof content === 'string' || content === null || content === undefined) || hasResponseFields(message)) return false;
      for (const call of calls as unknown[]) {
        if (!isRecord(call) || call.type !== 'function' || typeof call.id !== 'string' || 'index' in call) return false;
        const fn = call.function;
        if (!isRecord(fn) || !nonEmptyString(fn.name) || 'parsed_arguments' in fn) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function hasResponseFields(message: RawChatMessage): boolean {
  return 'refusal' in message || 'audio' in message || 'annotations' in message || 'parsed' in message;
}

function fixMessage(message: RawChatMessage, index: number, ledger: LedgerSnapshot): { message: RawChatMessage; notes: Note[] } | null {
  if (plainlyValid(message)) return null;
  const role = message.role;
  if (role !== 'assistant' && role !== 'tool' && role !== 'user' && role !== 'system' && role !== 'developer') return null;
  let draft: RawChatMessage | null = null;
  const next = (): RawChatMessage => (draft ??= { ...message });
  const notes: Note[] = [];
  if (role === 'assistant') {
    fixCalls(message, index, ledger, next, notes);
    fixAssistantFields(message, next, notes);
  }
  if (role === 'tool' && typeof message.tool_call_id === 'number') {
    next().tool_call_id = String(message.tool_call_id);
    notes.push({ kind: 'tool_call_shape', detail: 'numeric tool_call_id → string' });
  }
  const current: RawChatMessage = draft ?? message;
  const content = fixContent(current.content, role, hasCalls(current));
  if (content !== undefined) {
    next().content = content.value;
    notes.push(content.note);
  }
  return draft === null ? null : { message: draft, notes };
}

export const contentShapesPass: RepairPass = {
  name: 'content-shapes',
  run(request, context) {
    const messages = request.messages;
    const list = new MessageList(messages);
    const findings: Finding[] = [];
    for (let i = 0; i < messages.length; i++) {
      const fixed = fixMessage(messages[i], i, context.ledger);
      if (fixed === null) continue;
      list.set(i, fixed.message);
      for (const note of fixed.notes) findings.push(finding(note.kind, i, note.detail));
    }
    return { request: list.result(request), findings };
  },
};
