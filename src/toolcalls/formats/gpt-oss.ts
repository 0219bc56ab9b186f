import { findJsonEnd, isPlainObject, parseJsonLenient } from '../text/json-scan.js';
import type { ParseContext } from '../types.js';
import { defineFormat } from './define.js';
import { INCOMPLETE, NONE, indexFrom, literalAt, makeCall } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// gpt-oss harmony messages that leaked into text (the provider did not parse them):
//   <|channel|>analysis<|message|>The user wants the weather.<|end|>
//   <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>
//   <|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>
// The recipient may also stand in the role header (`<|start|>assistant to=functions.f<|channel|>commentary json<|message|>`).
// <|call|> and <|return|> are stop tokens, so they are often missing: a message also ends at the
// next <|start|> / <|channel|> or at the end of the answer. A message to `functions.NAME` is a
// call; an `analysis` message is reasoning on a channel of its own: it goes to reasoning_content
// (removed with `reasoning: drop`), never to content, as servers that read harmony return it; a
// `final` message, or a commentary message with no recipient (a preamble), is content without its
// markers. A whole message is one block, so its content is released when it ends.

const START = '<|start|>';
const CHANNEL = '<|channel|>';
const MESSAGE = '<|message|>';
const CONSTRAIN = '<|constrain|>';
const MESSAGE_ENDS = ['<|call|>', '<|end|>', '<|return|>'];
const NEXT_MESSAGE = [START, CHANNEL];
const MAX_HEADER = 200;
const RECIPIENT = /(?:^|\s)to=([^\s<]+)/;
const CHANNEL_NAME = /^(\w+)/;
const CONTENT_CHANNELS = new Set(['final', 'commentary']);
/** The namespace of developer-declared functions (built-in tools are `browser.*`, `python`). */
const FUNCTIONS = 'functions.';

export interface HarmonyMessage {
  channel: string;
  recipient?: string;
  /** Where the body starts (after <|message|>) and ends (before its end marker). */
  bodyStart: number;
  bodyEnd: number;
  /** After the end marker, if one was written. */
  end: number;
}

export const gptOssFormat = defineFormat({
  name: 'gpt-oss',
  triggers: '<',
  detect: (text) => text.includes(MESSAGE) && text.includes(CHANNEL),
  matchAt(text, start, ctx, env): BlockMatch {
    const message = readMessage(text, start, env);
    if (message === 'incomplete') return INCOMPLETE;
    if (message === undefined) return NONE;
    if (message.recipient !== undefined) return callOf(text, message, message.recipient, ctx);
    const body = text.slice(message.bodyStart, message.bodyEnd);
    if (message.channel === 'analysis') return { kind: 'segments', end: message.end, segments: [{ type: 'reasoning', text: body, raw: text.slice(start, message.end), channel: true }] };
    if (CONTENT_CHANNELS.has(message.channel)) return { kind: 'segments', end: message.end, segments: body === '' ? [] : [{ type: 'text', text: body }] };
    return NONE;
  },
});

/** A call message: its JSON body becomes the call's arguments. */
function callOf(text: string, message: HarmonyMessage, recipient: string, ctx: ParseContext): BlockMatch {
  const written = recipient.startsWith(FUNCTIONS) ? recipient.slice(FUNCTIONS.length) : recipient;
  const body = text.slice(message.bodyStart, message.bodyEnd).trim();
  if (body !== '' && findJsonEnd(body, 0) !== body.length) return { kind: 'none', skipTo: message.end };
  const args = body === '' ? {} : parseJsonLenient(body, ctx.repairBudget);
  if (!isPlainObject(args)) return { kind: 'none', skipTo: message.end };
  if (ctx.resolveName(written) === null) return { kind: 'none', skipTo: message.end, rejectedNames: 1 };
  const call = makeCall(written, args, ctx);
  return call ? { kind: 'calls', end: message.end, calls: [call] } : { kind: 'none', skipTo: message.end };
}

/** One harmony message at `start` (from <|start|> or <|channel|>); undefined when there is none. */
export function readMessage(text: string, start: number, env: ScanEnv): HarmonyMessage | 'incomplete' | undefined {
  let at = start;
  let roleHeader = '';
  const opener = literalAt(text, at, START);
  if (opener === 'partial') return env.final ? undefined : 'incomplete';
  if (opener === 'yes') {
    const channelAt = headerEnd(text, at + START.length, CHANNEL, env);
    if (typeof channelAt !== 'number') return channelAt;
    roleHeader = text.slice(at + START.length, channelAt);
    if (!roleHeader.trimStart().startsWith('assistant')) return undefined;
    at = channelAt;
  }
  const channel = literalAt(text, at, CHANNEL);
  if (channel !== 'yes') return channel === 'partial' && !env.final ? 'incomplete' : undefined;
  const messageAt = headerEnd(text, at + CHANNEL.length, MESSAGE, env);
  if (typeof messageAt !== 'number') return messageAt;
  const header = text.slice(at + CHANNEL.length, messageAt).replace(CONSTRAIN, ' ');
  const name = CHANNEL_NAME.exec(header);
  if (!name) return undefined;
  const recipient = RECIPIENT.exec(header)?.[1] ?? RECIPIENT.exec(roleHeader)?.[1];
  const bodyStart = messageAt + MESSAGE.length;
  const ends = nearest(text, bodyStart, MESSAGE_ENDS);
  const next = nearest(text, bodyStart, NEXT_MESSAGE);
  if (ends === undefined && next === undefined && !env.final) return 'incomplete';
  if (ends !== undefined && (next === undefined || ends.at < next.at)) return { channel: name[1], recipient, bodyStart, bodyEnd: ends.at, end: ends.at + ends.literal.length };
  const bodyEnd = next?.at ?? text.length;
  return { channel: name[1], recipient, bodyStart, bodyEnd, end: bodyEnd };
}

/** Where `marker` closes a short header starting at `from`. */
function headerEnd(text: string, from: number, marker: string, env: ScanEnv): number | 'incomplete' | undefined {
  const window = text.slice(from, from + MAX_HEADER + marker.length);
  const found = window.indexOf(marker);
  if (found >= 0) return window.slice(0, found).includes('\n') ? undefined : from + found;
  if (window.includes('\n') || from + window.length < text.length || env.final) return undefined;
  return 'incomplete';
}

function nearest(text: string, from: number, literals: readonly string[]): { at: number; literal: string } | undefined {
  let best: { at: number; literal: string } | undefined;
  for (const literal of literals) {
    const at = indexFrom(text, literal, from);
    if (at >= 0 && (best === undefined || at < best.at)) best = { at, literal };
  }
  return best;
}
