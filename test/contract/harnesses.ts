import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { createGeminiAdapter } from '../../src/providers/gemini/index.js';
import { OpenAICompatibleAdapter } from '../../src/providers/openai-compatible.js';
import { SimulatorAdapter } from '../../src/providers/simulator.js';
import type { ProviderAdapter, ProviderCallContext, ProviderSettings, ProviderType } from '../../src/providers/types.js';
import { answer, newSignature, startGeminiEmulator, usage } from '../emulators/gemini-server.js';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { weatherScript } from '../emulators/openai-script.js';

// One harness per adapter for the shared contract suite. A harness scripts its own upstream
// emulator in that upstream's wire format; the suite only speaks the normalized chat shape.

export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}

export interface Harness {
  name: string;
  adapter: ProviderAdapter;
  upstreamModel: string;
  /** Wire harnesses can script exact answers and errors; the simulator cannot. */
  script?: {
    text(text: string): void;
    toolCalls(calls: ScriptedCall[]): void;
    error(status: number, message: string): void;
    hang(): void;
    reset(): void;
  };
  /** An adapter for the same provider pointed at a closed port. */
  unreachable?: ProviderAdapter;
  close(): Promise<void>;
}

const TIMEOUT_MS = 600;

export function settingsFor(type: ProviderType, baseUrl: string, apiKey: string): ProviderSettings {
  return { name: `contract-${type}`, type, baseUrl, apiKey, timeoutMs: TIMEOUT_MS, streamIdleTimeoutMs: TIMEOUT_MS, headers: {} };
}

export function callContext(upstreamModel: string, signal = new AbortController().signal): ProviderCallContext {
  return {
    upstreamModel,
    signal,
    requestId: 'req_contract',
    log: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
    ledger: new MemoryLedger({ ttlMs: 60_000, maxEntries: 1000 }),
    forwardHeaders: {},
  };
}

async function openAIHarness(type: 'openai' | 'openai-compatible'): Promise<Harness> {
  const emulator = await startOpenAIEmulator({ apiKey: 'sk-contract-key-123456' });
  const adapter = new OpenAICompatibleAdapter(settingsFor(type, emulator.url, 'sk-contract-key-123456'));
  return {
    name: type,
    adapter,
    upstreamModel: type === 'openai' ? 'gpt-4o-mini' : 'Qwen/Qwen2.5-72B-Instruct',
    script: {
      text: (text) => emulator.setScript(() => ({ text })),
      toolCalls: (calls) => emulator.setScript(() => ({ toolCalls: calls.map((c) => ({ name: c.name, arguments: c.args })) })),
      error: (status, message) => emulator.setScript(() => ({ error: { status, body: { error: { message, type: 'invalid_request_error', param: null, code: null } } } })),
      hang: () => emulator.setScript(() => new Promise(() => undefined)),
      reset: () => emulator.setScript(weatherScript),
    },
    unreachable: new OpenAICompatibleAdapter(settingsFor(type, 'http://127.0.0.1:1/v1', 'k')),
    close: async () => {
      await adapter.close();
      await emulator.close();
    },
  };
}

async function geminiHarness(): Promise<Harness> {
  const emulator = await startGeminiEmulator();
  const adapter = createGeminiAdapter(settingsFor('gemini', emulator.baseUrl, emulator.apiKey));
  const RPC: Record<number, string> = { 400: 'INVALID_ARGUMENT', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };
  return {
    name: 'gemini',
    adapter,
    upstreamModel: 'gemini-3-flash-preview',
    script: {
      text: (text) => emulator.setScript(() => ({ response: answer([{ text }], 'STOP', usage(12, 7)) })),
      toolCalls: (calls) =>
        emulator.setScript(({ issuedSignatures }) => ({
          response: answer(
            calls.map((c, i) => ({ functionCall: { name: c.name, args: c.args }, ...(i === 0 ? { thoughtSignature: newSignature(issuedSignatures) } : {}) })),
            'STOP',
            usage(12, 9),
          ),
        })),
      error: (status, message) => emulator.setScript(() => ({ status, error: { code: status, message, status: RPC[status] ?? 'UNKNOWN' } })),
      hang: () => emulator.setScript(() => ({ delayMs: 60_000, response: answer([{ text: 'late' }], 'STOP', usage(1, 1)) })),
      reset: () => emulator.setScript(),
    },
    unreachable: createGeminiAdapter(settingsFor('gemini', 'http://127.0.0.1:1/v1beta', 'k')),
    close: async () => {
      await adapter.close?.();
      await emulator.close();
    },
  };
}

async function simulatorHarness(): Promise<Harness> {
  const adapter = new SimulatorAdapter(settingsFor('simulator', 'http://simulator.invalid', ''));
  return { name: 'simulator', adapter, upstreamModel: 'weather', close: async () => undefined };
}

export const HARNESSES: Array<() => Promise<Harness>> = [
  () => openAIHarness('openai'),
  () => openAIHarness('openai-compatible'),
  geminiHarness,
  simulatorHarness,
];
