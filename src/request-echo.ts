import { GatewayError } from './errors.js';

// What toolgate learns from an upstream's 400 (no tool support, a rejected contract field, how the
// model takes reasoning) rests on the upstream's own words. Some upstreams quote the request in
// their 400s: a phrase of such a message that also stands in a string the client sent may be the
// client's own text echoed back, so it never counts.

/** Upstream messages are read up to this length (they can quote the whole request). */
const MAX_MESSAGE = 2_000;

/** The message of an upstream's 400 (its first MAX_MESSAGE characters); undefined for any other error. */
export function upstream400Message(error: unknown): string | undefined {
  if (!(error instanceof GatewayError) || error.status !== 400 || error.kind !== 'upstream_status') return undefined;
  return error.message.slice(0, MAX_MESSAGE);
}

/** Whether one of `patterns` matches `message` in words that `request` (what was sent) did not carry itself. */
export function saysItself(message: string, patterns: readonly RegExp[], request?: unknown): boolean {
  for (const pattern of patterns) {
    const match = pattern.exec(message);
    if (match && !(request !== undefined && sentByClient(request, match[0].trim().toLowerCase()))) return true;
  }
  return false;
}

/** Whether any string in `value` (keys too; walked without recursion) contains `phrase` (lower case). */
function sentByClient(value: unknown, phrase: string): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (node.length >= phrase.length && node.toLowerCase().includes(phrase)) return true;
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
