import type { ChatMessage, ContentPart, ToolCall } from '../../api/chat-types.js';
import { errors } from '../../errors.js';
import { isJsonObject } from './schema.js';
import type { GeminiContent, GeminiPart } from './wire-types.js';
import { customCallInput, customCallName, isCustomCall } from '../../api/custom-calls.js';

// OpenAI messages → Gemini `contents` + `systemInstruction`, keeping Gemini's turn rules:
// roles alternate (consecutive same-role turns are merged), a function-call turn is followed
// by exactly one function-response turn answering every call in call order, and the first
// functionCall part of every step of the current turn carries a thought signature.

/** Gemini's documented value for "no signature known" (history from elsewhere). */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';
const NO_RESULT = 'No result was provided for this call.';

/** What the adapter knows about one tool call id (from the ledger or the client's message). */
export interface CallMeta {
  thoughtSignature?: string;
  /** The id Gemini itself gave the call, echoed back on functionCall/functionResponse. */
  upstreamId?: string;
}

export interface ContentsOptions {
  meta: (callId: string) => CallMeta | undefined;
  /** Fill in SKIP_SIGNATURE where the current turn lacks a signature (Gemini 3+). */
  requireSignatures: boolean;
}

export interface Contents {
  systemInstruction?: GeminiContent;
  contents: GeminiContent[];
}

export function toContents(messages: ChatMessage[], options: ContentsOptions): Contents {
  const system: GeminiPart[] = [];
  const turns: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  let lastCalls: ToolCall[] = [];

  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textParts(message.content));
        break;
      case 'user':
        turns.push({ role: 'user', parts: userParts(message.content) });
        break;
      case 'assistant': {
        const calls = message.tool_calls ?? [];
        for (const call of calls) callNames.set(call.id, callName(call));
        lastCalls = calls;
        turns.push({ role: 'model', parts: [...textParts(message.content || message.refusal), ...calls.map((c) => callPart(c, options))] });
        break;
      }
      case 'tool': {
        // Consecutive tool results form one turn, ordered like the calls they answer.
        const group: ChatMessage[] = [];
        while (i < messages.length && messages[i].role === 'tool') group.push(messages[i++]);
        i--;
        const order = (m: ChatMessage) => lastCalls.findIndex((c) => c.id === m.tool_call_id);
        group.sort((a, b) => order(a) - order(b));
        turns.push({ role: 'user', parts: group.map((m) => responsePart(m, callNames, options)) });
        break;
      }
      case 'function':
        turns.push({ role: 'user', parts: [{ functionResponse: { name: message.name ?? '', response: toResponseObject(message.content) } }] });
        break;
    }
  }
  const contents = enforcePairing(mergeTurns(turns.filter((t) => t.parts.length > 0)));
  if (contents[0]?.role === 'model' && contents[0].parts.some((p) => p.functionCall)) {
    // A call turn must follow a user turn; a history that starts with one gets a neutral opener.
    contents.unshift({ role: 'user', parts: [{ text: 'Continue the conversation.' }] });
  }
  if (options.requireSignatures) fillSignatures(contents);
  return { contents, ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}) };
}

/** A call's name; an OpenAI custom-tool call in the history (Gemini has no such tools) goes as a call with its text input. */
function callName(call: ToolCall): string {
  return isCustomCall(call) ? customCallName(call) : call.function.name;
}

function callPart(call: ToolCall, options: ContentsOptions): GeminiPart {
  const meta = options.meta(call.id);
  const part: GeminiPart = {
    functionCall: { ...(meta?.upstreamId ? { id: meta.upstreamId } : {}), name: callName(call), args: isCustomCall(call) ? { input: customCallInput(call) } : parseArguments(call.function.arguments) },
  };
  const signature = meta?.thoughtSignature ?? signatureFromExtraContent(call);
  if (signature) part.thoughtSignature = signature;
  return part;
}

function responsePart(message: ChatMessage, callNames: Map<string, string>, options: ContentsOptions): GeminiPart {
  const id = message.tool_call_id ?? '';
  const name = callNames.get(id);
  // The name must be the called function's: Gemini pairs results to calls by name and order.
  if (!name) throw errors.unrepairableHistory(`Tool message answers unknown tool_call_id '${id}': no preceding assistant tool call has that id.`);
  const upstreamId = options.meta(id)?.upstreamId;
  return { functionResponse: { ...(upstreamId ? { id: upstreamId } : {}), name, response: toResponseObject(message.content) } };
}

/** Google's own OpenAI-compatible layer carries signatures here; accept them from such clients. */
function signatureFromExtraContent(call: ToolCall): string | undefined {
  const extra = call.extra_content;
  const google = isJsonObject(extra) ? extra.google : undefined;
  const signature = isJsonObject(google) ? google.thought_signature : undefined;
  return typeof signature === 'string' && signature ? signature : undefined;
}

export function parseArguments(text: string | undefined): Record<string, unknown> {
  if (!text || !text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : { value: parsed };
  } catch {
    return {};
  }
}

/**
 * A tool result as FunctionResponse.response (a Struct): a JSON object is sent as is; any other
 * JSON value or plain text goes under `output`, the key Gemini's docs use for function output.
 */
export function toResponseObject(content: ChatMessage['content']): Record<string, unknown> {
  const text = textOf(content);
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      return isJsonObject(parsed) ? parsed : { output: parsed };
    } catch {
      // not JSON after all: plain text
    }
  }
  return { output: text };
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}

function textParts(content: unknown): GeminiPart[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  return (content as ContentPart[]).flatMap((p) => (typeof p.text === 'string' && p.text ? [{ text: p.text }] : []));
}

function userParts(content: ChatMessage['content']): GeminiPart[] {
  if (!Array.isArray(content)) return textParts(content);
  return content.flatMap((part): GeminiPart[] => {
    if (typeof part.text === 'string') return part.text ? [{ text: part.text }] : [];
    if (part.type === 'image_url' && isJsonObject(part.image_url) && typeof part.image_url.url === 'string') return [mediaPart(part.image_url.url, 'image/jpeg')];
    if (part.type === 'input_audio' && isJsonObject(part.input_audio) && typeof part.input_audio.data === 'string') {
      return [{ inlineData: { mimeType: `audio/${String(part.input_audio.format ?? 'wav')}`, data: part.input_audio.data } }];
    }
    if (part.type === 'file' && isJsonObject(part.file) && typeof part.file.file_data === 'string') return [mediaPart(part.file.file_data, 'application/pdf')];
    return [];
  });
}

/** data: URLs become inlineData; other URLs are passed as fileData for Gemini to fetch. */
function mediaPart(url: string, fallbackMime: string): GeminiPart {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (!match) return { fileData: { mimeType: guessMime(url) ?? fallbackMime, fileUri: url } };
  const mimeType = match[1] || fallbackMime;
  const data = match[2].includes(';base64') ? match[3] : Buffer.from(decodeURIComponent(match[3]), 'utf8').toString('base64');
  return { inlineData: { mimeType, data } };
}

function guessMime(url: string): string | undefined {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  const known: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', heic: 'image/heic', pdf: 'application/pdf' };
  return ext ? known[ext] : undefined;
}

function mergeTurns(turns: GeminiContent[]): GeminiContent[] {
  const merged: GeminiContent[] = [];
  for (const turn of turns) {
    const last = merged[merged.length - 1];
    if (last && last.role === turn.role) last.parts = [...last.parts, ...turn.parts];
    else merged.push({ role: turn.role, parts: [...turn.parts] });
  }
  return merged;
}

/**
 * Defensive: history repair already guarantees OpenAI validity, but Gemini's rules are stricter
 * (same count, right after the call turn). Missing results get an explicit error result;
 * results with no call turn before them become text.
 */
function enforcePairing(contents: GeminiContent[]): GeminiContent[] {
  const out: GeminiContent[] = [];
  for (let i = 0; i < contents.length; i++) {
    const turn = contents[i];
    const previous = out[out.length - 1];
    if (turn.role === 'user') {
      const expected = previous?.role === 'model' ? previous.parts.filter((p) => p.functionCall) : [];
      const responses = turn.parts.filter((p) => p.functionResponse);
      const others = turn.parts.filter((p) => !p.functionResponse);
      const kept = responses.slice(0, expected.length);
      const orphans = responses.slice(expected.length).map((p) => ({ text: `Result of ${p.functionResponse?.name}: ${JSON.stringify(p.functionResponse?.response)}` }));
      const missing = expected.slice(kept.length).map((p) => ({ functionResponse: { name: p.functionCall?.name ?? '', response: { error: NO_RESULT } } }));
      out.push({ role: 'user', parts: [...kept, ...missing, ...others, ...orphans] });
      continue;
    }
    out.push(turn);
    const calls = turn.parts.filter((p) => p.functionCall);
    if (calls.length > 0 && contents[i + 1]?.role !== 'user') {
      out.push({ role: 'user', parts: calls.map((p) => ({ functionResponse: { name: p.functionCall?.name ?? '', response: { error: NO_RESULT } } })) });
    }
  }
  return out;
}

/**
 * Gemini validates the current turn only: every step after the last user turn with ordinary
 * content needs a signature on its first functionCall part.
 */
function fillSignatures(contents: GeminiContent[]): void {
  let start = 0;
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i].role === 'user' && contents[i].parts.some((p) => !p.functionResponse)) {
      start = i + 1;
      break;
    }
  }
  for (const turn of contents.slice(start)) {
    const first = turn.role === 'model' ? turn.parts.find((p) => p.functionCall) : undefined;
    if (first && !first.thoughtSignature) first.thoughtSignature = SKIP_SIGNATURE;
  }
}
