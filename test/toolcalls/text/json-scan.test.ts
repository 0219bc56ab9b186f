import t from 'tap';
import { RepairBudget } from '../../../src/util/bounded-json.js';
import { parseToolCallsFromText } from '../../../src/toolcalls/parse.js';
import { parseJsonLenient } from '../../../src/toolcalls/text/json-scan.js';
import { fastestCpuMs, growthRatio } from '../../helpers/growth.js';
import { parseContext } from '../helpers.js';

// jsonrepair is worse than quadratic on quote runs: 8 KB of {'a'a'a…} as the arguments of a DeepSeek
// or Kimi K2 call took 7 s when model-text slices up to 32 KiB were handed to it.
const quoteRun = (chars: number): string => `{'a${"'a".repeat(chars / 2)}}`;

t.test('model text: the usual slips are still repaired', async (t) => {
  const budget = new RepairBudget();
  t.same(parseJsonLenient("{'city': 'Paris',}", budget), { city: 'Paris' });
  t.same(parseJsonLenient('{"a": True, "b": None}', budget), { a: true, b: null });
});

t.test('model text: a long broken slice is not handed to jsonrepair and is not a call', async (t) => {
  // No budget limit here: the size bound is under test.
  const ctx = { ...parseContext(), repairBudget: new RepairBudget({ capacity: Infinity, now: () => 0 }) };
  const body = quoteRun(8_000);
  for (const text of [
    `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>${body}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
    `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>${body}<|tool_call_end|><|tool_calls_section_end|>`,
  ]) {
    const before = ctx.repairBudget.charsRepaired;
    t.equal(parseToolCallsFromText(text, ctx), null, 'stays content');
    t.equal(ctx.repairBudget.charsRepaired, before, 'jsonrepair was not run');
  }
});

t.test('model text: cost grows linearly with a broken slice (2 KB vs 8 KB, best of 3)', async (t) => {
  const ctx = { ...parseContext(), repairBudget: new RepairBudget({ capacity: Infinity, now: () => 0 }) };
  const best = (chars: number): number => {
    const text = `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>${quoteRun(chars)}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
    return fastestCpuMs(3, () => parseToolCallsFromText(text, ctx));
  };
  // A floor of 5 ms for the small size keeps timer noise out of the ratio; quadratic or worse gives ≥ 16×.
  const { ratio, pairs } = growthRatio(() => ({ small: best(2_000), large: best(8_000) }), 8, { floor: 5 });
  t.ok(ratio < 8, `8 KB costs ${ratio.toFixed(1)}× 2 KB (pairs measured: ${pairs})`);
});
