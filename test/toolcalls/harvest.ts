import type { ToolDefinition } from '../../src/api/chat-types.js';
import { createNameResolver } from '../../src/toolcalls/names.js';
import { parseWithDetails } from '../../src/toolcalls/parse.js';
import { RepairBudget } from '../../src/util/bounded-json.js';
import { ToolCallStreamExtractor } from '../../src/toolcalls/stream-extractor.js';
import type { ParseContext, ParsedCall } from '../../src/toolcalls/types.js';
import { prng, seedOf, smallDeltas } from './deltas.js';
import type { HarvestCase } from './fixtures-harvest.js';

// Runs a harvested parser test case (test/toolcalls/fixtures-harvest.ts) through toolgate: whole
// text and streamed in 1–4 character deltas over seeded splits. Content is compared trimmed
// (toolgate keeps the whitespace around a removed call, vLLM and SGLang often strip it), and an
// empty content equals null.

const SPLITS = 20;

/** The JSON schema type of a value, as a tool declaring it would write it (null: any). */
function schemaOf(value: unknown): Record<string, unknown> {
  if (value === null) return {};
  if (Array.isArray(value)) return { type: 'array' };
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number' };
  return { type: typeof value };
}

/** The case's own tools, or one tool per called name with the expected arguments' types. */
export function harvestTools(c: HarvestCase): ToolDefinition[] {
  if (c.tools) return c.tools.map((tool) => ({ type: 'function', function: { name: tool.name, parameters: tool.parameters ?? { type: 'object', properties: {} } } }));
  const properties = new Map<string, Record<string, Record<string, unknown>>>();
  for (const call of c.calls) {
    const props = properties.get(call.name) ?? {};
    for (const [key, value] of Object.entries(call.args)) props[key] = schemaOf(value);
    properties.set(call.name, props);
  }
  for (const name of c.declared ?? []) if (!properties.has(name)) properties.set(name, {});
  return [...properties].map(([name, props]) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: props } } }));
}

export function harvestContext(c: HarvestCase): ParseContext {
  const tools = harvestTools(c);
  const map = new Map(tools.map((tool) => [tool.function.name, tool] as const));
  const resolver = createNameResolver([...map.keys()], {});
  return { tools: map, resolveName: (name) => resolver(name)?.name ?? null, repairBudget: new RepairBudget() };
}

interface Outcome {
  calls: Array<{ name: string; args: unknown }>;
  content: string | null;
}

const simplify = (calls: ParsedCall[]) => calls.map((call) => ({ name: call.name, args: JSON.parse(call.arguments) as unknown }));
const trimmed = (content: string | null | undefined): string | null => (content ?? '').trim() || null;

/** What toolgate makes of the case: null when right (whole and every split), else what went wrong. */
export function harvestFailure(c: HarvestCase): string | null {
  const ctx = harvestContext(c);
  const parsed = parseWithDetails(c.text, ctx);
  const whole: Outcome = { calls: simplify(parsed.result?.calls ?? []), content: trimmed(parsed.result ? parsed.result.content : c.text) };
  const expected: Outcome = { calls: c.calls, content: c.content === undefined ? whole.content : trimmed(c.content) };
  if (JSON.stringify(whole) !== JSON.stringify(expected)) return `whole: ${JSON.stringify(whole)}, expected ${JSON.stringify(expected)}`;
  const random = prng(seedOf(c.text));
  for (let split = 0; split < SPLITS; split++) {
    const pieces = split === 0 ? [c.text] : smallDeltas(c.text, random);
    const extractor = new ToolCallStreamExtractor(ctx);
    const calls: ParsedCall[] = [];
    let text = '';
    for (const event of [...pieces.flatMap((piece) => extractor.feed(piece)), ...extractor.end()]) {
      if (event.type === 'text') text += event.text;
      else if (event.type === 'call') calls.push(event.call);
    }
    const got: Outcome = { calls: simplify(calls), content: trimmed(text) };
    if (JSON.stringify(got) !== JSON.stringify(whole)) return `streamed ${JSON.stringify(pieces)}: ${JSON.stringify(got)}`;
  }
  return null;
}
