import pino from 'pino';
import type { AssistantMessage, ChatChunk, ChatRequest } from '../../../src/api/chat-types.js';
import type { CallLedger, LedgerEntry, LedgerQuery, LedgerSnapshot } from '../../../src/ledger/types.js';
import type { ProviderCallContext, ProviderSettings } from '../../../src/providers/types.js';

// Shared fixtures for the Gemini tests: settings, a call context, and a tiny in-memory ledger
// (the real one lives in src/ledger/memory.ts; these tests must not depend on it).

export class TestLedger implements CallLedger {
  readonly entries: LedgerEntry[] = [];
  failLookups = false;

  async record(entry: LedgerEntry): Promise<void> {
    this.entries.push(entry);
  }

  async lookup(query: LedgerQuery): Promise<LedgerSnapshot> {
    if (this.failLookups) throw new Error('ledger down');
    const byCallId = new Map<string, LedgerEntry>();
    for (const entry of this.entries) {
      for (const call of entry.message.tool_calls ?? []) if (query.callIds.includes(call.id)) byCallId.set(call.id, entry);
    }
    return { byCallId, byPrefix: new Map() };
  }

  /** One scope is enough here (tenant scoping is tested in test/ledger/tenancy.test.ts). */
  forScope(): CallLedger {
    return this;
  }
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export function makeSettings(baseUrl: string, overrides: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    name: 'gemini',
    type: 'gemini',
    baseUrl,
    apiKey: 'test-gemini-key',
    apiKeyEnv: 'GEMINI_API_KEY',
    timeoutMs: 5_000,
    streamIdleTimeoutMs: 5_000,
    headers: {},
    ...overrides,
  };
}

export function makeContext(model: string, overrides: Partial<ProviderCallContext> = {}): ProviderCallContext & { ledger: TestLedger; logs: LogLine[] } {
  const logs: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const ledger = new TestLedger();
  return { upstreamModel: model, signal: new AbortController().signal, requestId: 'req-test', log, ledger, forwardHeaders: {}, ...overrides, logs } as ProviderCallContext & { ledger: TestLedger; logs: LogLine[] };
}

export const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['c', 'f', null] } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};

export function userAsks(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'gemini/x', messages: [{ role: 'user', content: text }], tools: [weatherTool], ...extra };
}

export async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Folds chunks into the message a client SDK would assemble. */
export function assemble(chunks: ChatChunk[]): { message: AssistantMessage; finish: string | null } {
  let content = '';
  let finish: string | null = null;
  const calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  for (const chunk of chunks) {
    for (const choice of chunk.choices) {
      if (choice.delta.content) content += choice.delta.content;
      for (const delta of choice.delta.tool_calls ?? []) {
        calls[delta.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
        if (delta.id) calls[delta.index].id = delta.id;
        if (delta.function?.name) calls[delta.index].function.name += delta.function.name;
        if (delta.function?.arguments) calls[delta.index].function.arguments += delta.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { message: { role: 'assistant', content: content || null, ...(calls.length ? { tool_calls: calls } : {}) }, finish };
}
