import type { ChatChunk, ToolDefinition } from '../../src/api/chat-types.js';
import { createStreamNormalizer } from '../../src/toolcalls/normalize-stream.js';
import type { NormalizeReport } from '../../src/toolcalls/normalize-shared.js';
import { RepairBudget } from '../../src/util/bounded-json.js';
import { createNameResolver } from '../../src/toolcalls/names.js';
import type { NormalizeContext } from '../../src/toolcalls/normalize.js';
import type { ParseContext } from '../../src/toolcalls/types.js';

export function tool(name: string, properties: Record<string, unknown> = {}, required: string[] = []): ToolDefinition {
  return { type: 'function', function: { name, description: `${name} tool`, parameters: { type: 'object', properties, required } } };
}

export const TOOLS: ToolDefinition[] = [
  tool('get_weather', { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' } }, ['city']),
  tool('get_time', { zone: { type: 'string' } }),
  tool('search_procedure', { query: { type: 'string' } }, ['query']),
  tool('write_file', { path: { type: 'string' }, content: { type: 'string' }, options: { type: 'object' }, tags: { type: 'array' } }, ['path', 'content']),
];

export function parseContext(tools: ToolDefinition[] = TOOLS, aliases: Record<string, string> = {}): ParseContext {
  const map = new Map(tools.map((t) => [t.function.name, t] as const));
  const resolver = createNameResolver([...map.keys()], aliases);
  return { tools: map, resolveName: (name) => resolver(name)?.name ?? null, repairBudget: new RepairBudget() };
}

export function normalizeContext(tools: ToolDefinition[] = TOOLS, extra: Partial<NormalizeContext> = {}): NormalizeContext {
  const map = new Map(tools.map((t) => [t.function.name, t] as const));
  const resolver = createNameResolver([...map.keys()], {});
  return {
    tools: map,
    resolveName: (name) => resolver(name)?.name ?? null,
    resolveNameDetailed: resolver,
    repairBudget: new RepairBudget(),
    textParsing: true,
    ...extra,
  };
}

/** The stream normalizer over an async chunk source, as the chat path drives it (push per chunk, end). */
export function normalizeStream(chunks: AsyncIterable<ChatChunk>, ctx: NormalizeContext): { chunks: AsyncIterable<ChatChunk>; report: NormalizeReport } {
  const normalizer = createStreamNormalizer(ctx);
  async function* run(): AsyncGenerator<ChatChunk> {
    const out: ChatChunk[] = [];
    for await (const chunk of chunks) {
      normalizer.push(chunk, out);
      yield* out.splice(0);
    }
    normalizer.end(out);
    yield* out;
  }
  return { chunks: run(), report: normalizer.report };
}
