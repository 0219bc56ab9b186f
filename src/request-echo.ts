import { GatewayError } from './errors.js';

// What toolgate learns from an upstream's 400 (no tool support, a rejected contract field, how the
// model takes reasoning) rests on the upstream's own words. Some upstreams quote the request in
// their 400s: a phrase of such a message that stands in a string the client sent, amid the same
// words around it, may be the client's own text echoed back, so it does not count. The same
// phrase in the client's text among other words (a user who writes "not supported") is a
// coincidence: the upstream's own words still count.

/** Upstream messages are read up to this length (they can quote the whole request). */
const MAX_MESSAGE = 2_000;
/** Characters around a phrase that must also be the client's for the phrase to be its echo. */
const ECHO_CONTEXT = 24;
/** Matches of one pattern looked at in a message. */
const MAX_MATCHES = 8;

/** The message of an upstream's 400 (its first MAX_MESSAGE characters); undefined for any other error. */
export function upstream400Message(error: unknown): string | undefined {
  if (!(error instanceof GatewayError) || error.status !== 400 || error.kind !== 'upstream_status') return undefined;
  return error.message.slice(0, MAX_MESSAGE);
}

/** Whether one of `patterns` matches `message` in words that are not an echo of what `request` (what was sent) carried. */
export function saysItself(message: string, patterns: readonly RegExp[], request?: unknown): boolean {
  for (const pattern of patterns) {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    let seen = 0;
    for (let match = global.exec(message); match && seen < MAX_MATCHES; match = global.exec(message), seen++) {
      if (match[0].trim() === '') {
        global.lastIndex++;
        continue;
      }
      // The words themselves, without the blanks a pattern anchors on.
      const start = match.index + (match[0].length - match[0].trimStart().length);
      const end = match.index + match[0].trimEnd().length;
      if (request === undefined || !echoes(message, start, end, request)) return true;
    }
  }
  return false;
}

/**
 * Whether `message[start, end)` is the client's own text quoted back: some string of `request`
 * (keys too; walked without recursion) holds it with the same ECHO_CONTEXT characters around it
 * (case aside), or holds it whole within the same words.
 */
export function echoes(message: string, start: number, end: number, request: unknown): boolean {
  const text = message.toLowerCase();
  const phrase = text.slice(start, end);
  const stack: unknown[] = [request];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (node.length >= phrase.length && quotedIn(text, start, end, node.toLowerCase(), phrase)) return true;
    } else if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (typeof node === 'object' && node !== null) {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        stack.push(key);
        stack.push((node as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** Whether an occurrence of `phrase` in `sent` shares its surroundings with `text[start, end)`. */
function quotedIn(text: string, start: number, end: number, sent: string, phrase: string): boolean {
  for (let at = sent.indexOf(phrase); at >= 0; at = sent.indexOf(phrase, at + 1)) {
    let left = 0;
    while (left < ECHO_CONTEXT && start - left > 0 && at - left > 0 && text.charCodeAt(start - left - 1) === sent.charCodeAt(at - left - 1)) left++;
    let right = 0;
    while (left + right < ECHO_CONTEXT && end + right < text.length && at + phrase.length + right < sent.length && text.charCodeAt(end + right) === sent.charCodeAt(at + phrase.length + right)) right++;
    // The surroundings match, or the client's whole string is in the message (a short one quoted),
    // or the whole message is in the client's string (nothing of it is the upstream's own).
    if (left + right >= ECHO_CONTEXT || (at - left === 0 && at + phrase.length + right === sent.length) || (start - left === 0 && end + right === text.length)) return true;
  }
  return false;
}
