import t from 'tap';
import { parseToolCallsFromText } from '../../../src/toolcalls/parse.js';
import { promotedBytes } from '../../helpers/heap.js';
import { CASES } from '../fixtures.js';
import { parseContext } from '../helpers.js';

// A parse's texts must die young. The formats' search memos (shared.ts indexFrom) live across
// parses; one kept as a module-level Map cleared after each pass had, once in the old generation,
// each next table allocated there, and the dead table kept every text it had searched alive through
// scavenges: each parse of a Qwen3-Coder, DeepSeek, GLM, gpt-oss, MiniMax, … answer promoted its
// whole text. Counted in bytes of the old space across explicit scavenges, no timing.

const ctx = parseContext();
const PROSE = 'Let me check the weather for you. '.repeat(300);
const PARSES = 300;

const firstCaseOfEachFormat = new Map<string, string>();
for (const c of CASES) if (c.calls !== null && !firstCaseOfEachFormat.has(c.format)) firstCaseOfEachFormat.set(c.format, c.text);

t.test('a parsed answer is not promoted by scavenges, whatever its format', async (t) => {
  let checked = 0;
  for (const [format, sample] of firstCaseOfEachFormat) {
    // A new text per parse, as answers are; the first ones put the memos in the old generation.
    const text = (i: number): string => `${PROSE}${i} ${sample}`;
    if (parseToolCallsFromText(text(0), ctx) === null) continue; // a format that takes no prose before its calls
    for (let i = 0; i < 30; i++) parseToolCallsFromText(text(i), ctx);
    const grown = await promotedBytes((i) => parseToolCallsFromText(text(i), ctx), PARSES / 10);
    // Each text is ~10 KB: kept per parse, 300 parses would promote ~3 MB (what is left is the parse's own objects).
    t.ok(grown < (PARSES * PROSE.length) / 2, `${format}: old space grew ${grown} B over ${PARSES} parses`);
    checked++;
  }
  t.ok(checked >= 20, `${checked} of ${firstCaseOfEachFormat.size} formats checked`);
});
