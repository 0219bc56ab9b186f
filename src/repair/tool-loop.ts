import type { RawChatMessage } from '../api/chat-types.js';
import type { Finding, RepairPass } from './types.js';
import { callName, clip, finding, hasCalls, isRecord } from './util.js';

// Pass 10: an agent calling the same tool with the same arguments again and again is stuck (it
// missed or distrusts the result). Reported as `tool_loop`; with options.loopNote a short system
// note at the end tells the model it already has that result. Arguments compare as JSON values
// (key order and spacing do not matter).

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function canonicalArgs(raw: unknown): string {
  if (typeof raw !== 'string') return canonical(raw);
  try {
    return canonical(JSON.parse(raw));
  } catch {
    return raw.trim();
  }
}

/**
 * An order-insensitive digest of the non-whitespace characters: equal for arguments that differ only
 * in key order or spacing, so only calls sharing one are parsed and compared exactly.
 */
function roughKey(raw: unknown): number {
  if (typeof raw !== 'string') return -1;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) continue;
    // murmur3 fmix32 per character: non-linear, so different multisets rarely sum alike
    let h = Math.imul(c, 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    sum = (sum + (h ^ (h >>> 16))) | 0;
    count++;
  }
  return (sum ^ Math.imul(count, 0x27d4eb2d)) >>> 1; // a small non-negative integer
}

interface Seen {
  name: string;
  raw: unknown;
  rough: number;
  message: number;
}

interface Group {
  name: string;
  args: string;
  count: number;
  last: number;
}

function collect(messages: readonly RawChatMessage[]): Seen[] {
  const out: Seen[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role !== 'assistant' || !hasCalls(message)) continue;
    for (const call of message.tool_calls) {
      const raw = isRecord(call) && isRecord(call.function) ? call.function.arguments : undefined;
      out.push({ name: callName(call), raw, rough: 0, message: i });
    }
  }
  return out;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

export const toolLoopPass: RepairPass = {
  name: 'tool-loop',
  run(request, context) {
    const threshold = Math.max(2, context.options.loopThreshold);
    const messages = request.messages;
    // Cheap counts first (by name, then by name + rough key); exact JSON comparison only for
    // calls that could still reach the threshold.
    let calls = collect(messages);
    if (calls.length < threshold) return { request, findings: [] };
    const byName = countBy(calls, (call) => call.name);
    calls = calls.filter((call) => (byName.get(call.name) ?? 0) >= threshold);
    if (calls.length === 0) return { request, findings: [] };
    for (const call of calls) call.rough = roughKey(call.raw);
    const byRough = new Map<string, Map<number, number>>();
    for (const call of calls) {
      const inner = byRough.get(call.name) ?? new Map<number, number>();
      inner.set(call.rough, (inner.get(call.rough) ?? 0) + 1);
      byRough.set(call.name, inner);
    }
    calls = calls.filter((call) => (byRough.get(call.name)?.get(call.rough) ?? 0) >= threshold);

    const groups = new Map<string, Group>();
    for (const call of calls) {
      const args = canonicalArgs(call.raw);
      const key = `${call.name}\u0000${args}`;
      const group = groups.get(key) ?? { name: call.name, args, count: 0, last: call.message };
      group.count++;
      group.last = call.message;
      groups.set(key, group);
    }

    const loops = [...groups.values()].filter((group) => group.count >= threshold);
    if (loops.length === 0) return { request, findings: [] };
    const note = context.options.loopNote;
    const findings: Finding[] = loops.map((group) =>
      finding('tool_loop', group.last, `${group.name} called ${group.count} times with the same arguments ${clip(group.args, 60)}`, !note),
    );
    if (!note) return { request, findings };
    const lines = loops.map((group) => `${group.name} with arguments ${clip(group.args, 200)} (${group.count} times)`);
    const system: RawChatMessage = {
      role: 'system',
      content:
        `Note: you have already called ${lines.join('; ')}. The results are in the conversation above. ` +
        'Use them instead of calling the tool again with the same arguments.',
    };
    return { request: { ...request, messages: [...messages, system] }, findings };
  },
};
