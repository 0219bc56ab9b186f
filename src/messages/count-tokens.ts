import type { RawChatRequest } from '../api/chat-types.js';
import type { RepairOptions } from '../repair/types.js';
import { repairMessages } from './repair/index.js';
import { toChatRequest } from './to-chat.js';
import type { MessagesRequest } from './types.js';

// `POST /v1/messages/count_tokens`: an estimate, not a tokenizer. The request is repaired and
// translated exactly as for /v1/messages, then counted the way the gateway estimates tokens
// elsewhere (the simulator's usage): one token per 4 characters of message text, plus the tool
// definitions as JSON, rounded up. Open models' tokenizers differ by ±30 % on English text; the
// figure is for budgeting and compaction decisions (what Claude Code uses it for), never billing.

const CHARS_PER_TOKEN = 4;

export function countTokens(request: MessagesRequest, options: RepairOptions): { input_tokens: number } {
  const repaired = repairMessages(request, options);
  const chat = toChatRequest({ ...request, max_tokens: request.max_tokens ?? 1 }, repaired.history, { provider: 'count_tokens', target: { type: 'count_tokens', model: '' } });
  return { input_tokens: Math.max(1, Math.ceil(charsOf(chat) / CHARS_PER_TOKEN)) };
}

function charsOf(chat: RawChatRequest): number {
  let chars = 0;
  for (const message of chat.messages) {
    const content = message.content;
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content)) for (const part of content as Array<{ text?: unknown }>) chars += typeof part.text === 'string' ? part.text.length : 0;
    if (typeof message.reasoning_content === 'string') chars += message.reasoning_content.length;
    if (Array.isArray(message.tool_calls)) for (const call of message.tool_calls as Array<{ function?: { name?: string; arguments?: string } }>) chars += (call.function?.name?.length ?? 0) + (call.function?.arguments?.length ?? 0);
  }
  if (chat.tools) chars += JSON.stringify(chat.tools).length;
  return chars;
}
