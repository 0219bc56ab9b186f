// Where JSON values embedded in model text end, for every opener a format asks about, in linear
// time overall. Asking `findJsonEnd` afresh at each of n openers costs O(n²) when the text keeps
// repeating an opener that never closes (`<tool_call>{"` × 10,000). Here the answers are exact
// (the same as a fresh scan from the opener) but every walk leaves a record behind, and later
// walks jump over recorded ground instead of walking it again.
//
// Why the jumps are exact. A walk from an opener is a quote automaton (outside / in a "…" or '…'
// string / just after a backslash in one: five states) plus a stack of expected closers. Two
// walks that stand at the same position in the same quote state read the rest of the text
// identically: same quote transitions, same pushes and pops relative to that position. So what a
// later walk does from there, until the first closer that pops below its level there, was already
// seen by the earlier walk, which recorded for each (position, state) a "region": the first later
// position where a closer pops below that level (`pop`), a closer mismatches above it
// (`mismatch`), or the text ends (`eot`). The later walk jumps to that event and settles it
// against its own stack. Each (position, state) pair is walked at most once, so all walks over a
// text cost at most five passes over it, however many openers are asked.

const OUT = 0;
const IN_DOUBLE = 1;
const IN_SINGLE = 2;
const ESCAPED_DOUBLE = 3;
const ESCAPED_SINGLE = 4;
const STATES = 5;

const POP = 0;
const MISMATCH = 1;
const END_OF_TEXT = 2;

/** Where a JSON value starting at an opener ends (exclusive), or why it cannot be told yet. */
export type JsonEnd = number | 'incomplete' | 'invalid';

// Answers per opener position, in one Int32Array: 0 not asked yet, the end (always > 0) of a value,
// or one of these. A Map entry per opener cost more than the walk itself on texts that repeat one
// (`{"\n` × 67,000: ~40% of a parse went to the Map, closures and stacks made per walk).
const ANSWER_INCOMPLETE = -1;
const ANSWER_INVALID = -2;

export class JsonStructure {
  /** Per quote state: region id + 1 recorded at each position (0: not walked in that state). */
  private readonly regionAt: Array<Int32Array | undefined> = new Array<Int32Array | undefined>(STATES);
  private readonly regionKind: number[] = [];
  private readonly regionAt_: number[] = [];
  private answers: Int32Array | undefined;
  /**
   * The current walk's stack: expected closers and the regions they opened, in step, [0, depth).
   * Walks never nest, so the arrays are reused and only the depth is reset.
   */
  private readonly closers: number[] = [];
  private readonly regions: number[] = [];
  private depth = 0;
  /** Characters walked (not jumped) so far: the work done, for tests. */
  walked = 0;

  constructor(readonly text: string) {}

  /** The end of the object or array opening at `start` (see findJsonEnd). */
  endOf(start: number): JsonEnd {
    const answers = (this.answers ??= new Int32Array(this.text.length + 1));
    const known = answers[start];
    if (known !== 0) return known > 0 ? known : known === ANSWER_INCOMPLETE ? 'incomplete' : 'invalid';
    const open = this.text.charCodeAt(start);
    const answer = open === 123 || open === 91 ? this.walk(start) : 'invalid';
    answers[start] = typeof answer === 'number' ? answer : answer === 'incomplete' ? ANSWER_INCOMPLETE : ANSWER_INVALID;
    return answer;
  }

  private newRegion(): number {
    this.regionKind.push(-1);
    this.regionAt_.push(-1);
    return this.regionKind.length - 1;
  }

  private record(state: number, at: number, region: number): void {
    let regions = this.regionAt[state];
    if (!regions) regions = this.regionAt[state] = new Int32Array(this.text.length + 1);
    regions[at] = region + 1;
  }

  private resolve(region: number, kind: number, at: number): void {
    this.regionKind[region] = kind;
    this.regionAt_[region] = at;
  }

  private push(closer: number): void {
    this.closers[this.depth] = closer;
    this.regions[this.depth] = this.newRegion();
    this.depth++;
  }

  /** Settles every open region of the current walk and gives its answer. */
  private settle(kind: number, at: number, answer: JsonEnd): JsonEnd {
    const regions = this.regions;
    let depth = this.depth;
    // The top region saw the closer pop below it; the ones under it saw a mismatch above them.
    if (kind === POP) {
      if (depth > 0) this.resolve(regions[--depth], POP, at);
      kind = MISMATCH;
    }
    for (let level = 0; level < depth; level++) this.resolve(regions[level], kind, at);
    return answer;
  }

  private walk(start: number): JsonEnd {
    const text = this.text;
    this.depth = 0;
    this.push(closerOf(text.charCodeAt(start)));
    let state = OUT;
    let i = start + 1;
    while (i <= text.length) {
      const recorded = this.regionAt[state]?.[i] ?? 0;
      if (recorded > 0) {
        const kind = this.regionKind[recorded - 1];
        const at = this.regionAt_[recorded - 1];
        if (kind === END_OF_TEXT) return this.settle(END_OF_TEXT, at, 'incomplete');
        if (kind === MISMATCH) return this.settle(MISMATCH, at, 'invalid');
        // POP: the closer at `at` meets this walk's own stack.
        const popped = this.popAt(at);
        if (popped === 'mismatch') return this.settle(POP, at, 'invalid');
        if (popped === 'empty') return at + 1;
        state = OUT;
        i = at + 1;
        continue;
      }
      if (i === text.length) return this.settle(END_OF_TEXT, i, 'incomplete');
      this.record(state, i, this.regions[this.depth - 1]);
      this.walked++;
      const ch = text.charCodeAt(i);
      switch (state) {
        case IN_DOUBLE:
          if (ch === 92) state = ESCAPED_DOUBLE;
          else if (ch === 34) state = OUT;
          break;
        case IN_SINGLE:
          if (ch === 92) state = ESCAPED_SINGLE;
          else if (ch === 39) state = OUT;
          break;
        case ESCAPED_DOUBLE:
          state = IN_DOUBLE;
          break;
        case ESCAPED_SINGLE:
          state = IN_SINGLE;
          break;
        default:
          if (ch === 34) state = IN_DOUBLE;
          else if (ch === 39) state = IN_SINGLE;
          else if (ch === 123 || ch === 91) this.push(closerOf(ch));
          else if (ch === 125 || ch === 93) {
            const popped = this.popAt(i);
            if (popped === 'mismatch') return this.settle(POP, i, 'invalid');
            if (popped === 'empty') return i + 1;
          }
      }
      i++;
    }
    return this.settle(END_OF_TEXT, text.length, 'incomplete');
  }

  /** The closer at `at` pops the current walk's top entry: 'ok', 'empty' (the value is complete) or 'mismatch'. */
  private popAt(at: number): 'ok' | 'empty' | 'mismatch' {
    const top = this.depth - 1;
    if (this.closers[top] !== this.text.charCodeAt(at)) return 'mismatch';
    this.depth = top;
    this.resolve(this.regions[top], POP, at);
    return top === 0 ? 'empty' : 'ok';
  }
}

function closerOf(open: number): number {
  return open === 123 ? 125 : 93;
}

// The structures of the last few texts asked about: formats call findJsonEnd(text, i) with the
// scanner's text, so the memo is keyed by that string (identity is checked first, so this is cheap).
const RECENT = 4;
const recent: JsonStructure[] = [];

export function structureOf(text: string): JsonStructure {
  for (const structure of recent) if (structure.text === text) return structure;
  const structure = new JsonStructure(text);
  recent.unshift(structure);
  if (recent.length > RECENT) recent.pop();
  return structure;
}

/** Forgets the memo (the scanner calls this after each pass so texts are not kept alive). */
export function releaseJsonStructures(): void {
  recent.length = 0;
}
