import t from 'tap';
import { parseWithDetails } from '../../../src/toolcalls/parse.js';
import { growthRatio } from '../../helpers/growth.js';
import { bestParseTime, repeatTo } from '../deltas.js';
import { parseContext } from '../helpers.js';

// Qwen3-Coder blocks broken in ways that made every <function= opener read (or search) the rest of
// the text again: the cost of 200 KB must stay about eight times that of 25 KB. Compared as
// 8 × 25 KB against 1 × 200 KB, best of five (linear: ≈ 1, quadratic: ≈ 8; the limit of 4 leaves
// room for a loaded machine); no absolute bounds.

const ctx = parseContext();
const UNITS: Record<string, string> = {
  // Openers mid-line: every value runs on to the next line-start <parameter=, through the rest.
  'inline openers, parameters on their own lines': 'a <function=get_weather>\n<parameter=city>x\n',
  'inline openers, nothing starts a line': 'a <function=get_weather><parameter=city>\n',
  // Each </parameter> is followed by text, so none closes a value: searched once per opener.
  'stray </parameter> on every line': '<tool_call>\n<function=get_weather>\n<parameter=city>\nx </parameter> y\n',
};

t.test('broken qwen3-coder blocks: 200 KB once costs about what 25 KB eight times does', async (t) => {
  for (const [name, unit] of Object.entries(UNITS)) {
    const small = repeatTo(unit, 25_000);
    const large = repeatTo(unit, 200_000);
    t.equal(parseWithDetails(large, ctx).content, large, `${name}: no call in it, all content`);
    bestParseTime(repeatTo(unit, 10_000), 1, ctx); // warm-up
    const growth = growthRatio(() => ({ small: bestParseTime(small, 8, ctx), large: bestParseTime(large, 1, ctx) }), 4);
    t.ok(growth.ratio < 4, `${name}: 8 × 25 KB ${growth.small.toFixed(1)} ms, 200 KB ${growth.large.toFixed(1)} ms (pairs measured: ${growth.pairs})`);
  }
});
