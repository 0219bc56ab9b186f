import type { Test } from 'tap';
import type { ToolCallFormat } from '../../../src/toolcalls/formats/types.js';
import type { ReasoningMode } from '../../../src/toolcalls/reasoning.js';
import { parseWithDetails } from '../../../src/toolcalls/parse.js';
import { ToolCallStreamExtractor } from '../../../src/toolcalls/stream-extractor.js';
import type { ParseContext, ParseResult } from '../../../src/toolcalls/types.js';
import { fastestCpuMs, growthRatio } from '../../helpers/growth.js';
import { prng, smallDeltas as deltasFrom } from '../deltas.js';

// Checks for the tag-based format tests: the whole-text parse, the format alone, and the same
// text streamed in 1–4 character deltas (several seeded splits) must all agree.

export interface Expected {
  name: string;
  args: Record<string, unknown>;
}

export interface FormatCase {
  title: string;
  text: string;
  /** null: the text stays content. */
  calls: Expected[] | null;
  content?: string | null;
}

const SPLITS = 12;

/** The text cut into 1–4 character deltas, from a seeded split. */
export function smallDeltas(text: string, seed: number): string[] {
  return deltasFrom(text, prng(seed));
}

function simplify(result: ParseResult | null) {
  if (!result) return null;
  return { calls: result.calls.map((call) => ({ name: call.name, args: JSON.parse(call.arguments) as unknown })), content: result.content, format: result.format };
}

/** Streams the pieces; returns the released prose and the calls. */
export function streamed(pieces: string[], ctx: ParseContext, reasoningMode: ReasoningMode = 'content'): { text: string; reasoning: string; calls: Expected[] } {
  const extractor = new ToolCallStreamExtractor(ctx, { reasoning: reasoningMode });
  let text = '';
  let reasoning = '';
  const calls: Expected[] = [];
  for (const event of [...pieces.flatMap((piece) => extractor.feed(piece)), ...extractor.end()]) {
    if (event.type === 'text') text += event.text;
    else if (event.type === 'reasoning') reasoning += event.text;
    else calls.push({ name: event.call.name, args: JSON.parse(event.call.arguments) as Record<string, unknown> });
  }
  return { text, reasoning, calls };
}

export function checkCases(t: Test, format: ToolCallFormat, cases: FormatCase[], ctx: ParseContext): void {
  for (const c of cases) {
    const whole = simplify(parseWithDetails(c.text, ctx).result);
    if (c.calls === null) {
      t.equal(whole, null, `${c.title}: stays content`);
    } else {
      t.same(whole, { calls: c.calls, content: c.content ?? null, format: format.name }, `${c.title}: whole text`);
      t.same(simplify(format.parse(c.text, ctx)), whole, `${c.title}: the format alone agrees`);
    }
    const onePiece = streamed([c.text], ctx);
    t.same(onePiece.calls, c.calls ?? [], `${c.title}: stream in one piece`);
    if (whole) t.equal(onePiece.text, whole.content ?? '', `${c.title}: streamed prose equals the whole answer's`);
    let same = 0;
    for (let seed = 1; seed <= SPLITS; seed++) {
      const split = streamed(smallDeltas(c.text, seed), ctx);
      if (JSON.stringify(split) === JSON.stringify(onePiece)) same++;
      else t.same(split, onePiece, `${c.title}: split ${seed} equals the whole`);
    }
    t.equal(same, SPLITS, `${c.title}: every 1–4 character split equals the whole`);
  }
}

/** With reasoning split out: the whole answer and every 1–4 character split give `expected`. */
export function checkSplitReasoning(t: Test, title: string, text: string, ctx: ParseContext, expected: { calls: Expected[]; content: string | null; reasoning: string }): void {
  const whole = parseWithDetails(text, ctx, { reasoning: 'split' });
  const calls = (whole.result?.calls ?? []).map((call) => ({ name: call.name, args: JSON.parse(call.arguments) as unknown }));
  t.same({ calls, content: whole.content, reasoning: whole.reasoning }, expected, `${title}: whole text`);
  const want = { text: expected.content ?? '', reasoning: expected.reasoning, calls: expected.calls };
  let same = 0;
  for (let seed = 1; seed <= SPLITS; seed++) {
    const split = streamed(smallDeltas(text, seed), ctx, 'split');
    if (JSON.stringify(split) === JSON.stringify(want)) same++;
    else t.same(split, want, `${title}: split ${seed}`);
  }
  t.equal(same, SPLITS, `${title}: every 1–4 character split gives the same`);
}

/**
 * A degenerate answer repeating `unit` (an opener that never closes) must cost linear time: 4× the
 * text may cost about 4× (best of five runs each), where re-reading from every opener to the end
 * would cost 16×. Sizes are large enough for the difference to dwarf timer noise.
 */
export function checkLinearGrowth(t: Test, unit: string, ctx: ParseContext): void {
  const cost = (size: number): number => {
    const text = unit.repeat(Math.ceil(size / unit.length));
    return fastestCpuMs(5, () => parseWithDetails(text, ctx));
  };
  cost(50_000); // warm up
  const { ratio, pairs } = growthRatio(() => ({ small: cost(200_000), large: cost(800_000) }), 10);
  t.ok(ratio < 10, `4× the text costs ${ratio.toFixed(1)}× (re-reading from every opener: ~16×; pairs measured: ${pairs})`);
}
