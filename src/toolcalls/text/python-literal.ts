// A small reader for Python call lists as Llama 3.2/4 write them:
// [get_weather(city='SF', days=3), get_time()] — keyword arguments whose values are Python
// literals (strings, numbers, True/False/None, lists, tuples, dicts). It tells "ran out of text"
// (the stream may still complete it) from "not this syntax".

export interface PythonCall {
  name: string;
  args: Record<string, unknown>;
}

/** `malformed`: names of calls written as `name(…)` whose arguments could not be read; they were skipped. */
export type PythonCallList = { kind: 'calls'; calls: PythonCall[]; end: number; malformed: string[] } | { kind: 'eof' } | { kind: 'error' };

class OutOfText extends Error {}
class NotPython extends Error {}
class MalformedArguments extends Error {
  callName = '';
}

// One instance each, thrown again and again: creating an Error captures a stack trace, which
// dominated the cost of rejecting many candidate lists.
const OUT_OF_TEXT = new OutOfText('out of text');
const NOT_PYTHON = new NotPython('not python');
const MALFORMED = new MalformedArguments('malformed arguments');

function malformed(callName: string): MalformedArguments {
  MALFORMED.callName = callName;
  return MALFORMED;
}

/** Values nested deeper than this are not read (the list is not a call list). */
export const MAX_PYTHON_NESTING = 64;

/** A malformed call is skipped (and the rest of its list kept) only when it is at most this long. */
export const MAX_SKIPPED_CALL = 512;

/**
 * `lenient` (calls inside a model's own wrapper tokens, read once the wrapper is closed): raw
 * newlines in quoted strings, and strings with unescaped quotes of their own kind inside
 * (`command='sed -n '1,9p' f.py'`) closed at the one later quote after which the list reads
 * (as vLLM's LFM2 parser recovers them; none or several: not recovered).
 */
export interface PythonReadOptions {
  lenient?: boolean;
}

/** A string closed at a quote that nothing a value can be followed by follows. */
interface Broken {
  quote: number;
  char: string;
}

/** Re-reads of one list while looking for a broken string's closing quote (and candidates per string). */
const MAX_RECOVERY_READS = 16;
const MAX_CLOSER_CANDIDATES = 8;

/** Reads `[call, …]` starting at `start` (which must be `[`), never past `limit` (default: the text's end). */
export function readPythonCallList(text: string, start: number, limit = text.length, options: PythonReadOptions = {}): PythonCallList {
  const source = limit < text.length ? text.slice(0, limit) : text;
  const first = readOnce(source, start, options.lenient === true, new Set());
  if (first.broken === undefined || (first.list.kind === 'calls' && first.list.malformed.length === 0)) return first.list;
  return recover(source, start, first.broken, new Set(), { reads: MAX_RECOVERY_READS }) ?? first.list;
}

function readOnce(source: string, start: number, lenient: boolean, literalQuotes: ReadonlySet<number>): { list: PythonCallList; broken?: Broken } {
  const reader = new Reader(source, start, lenient, literalQuotes);
  try {
    const calls = reader.callList();
    return { list: { kind: 'calls', calls, end: reader.pos, malformed: reader.malformed }, broken: reader.broken };
  } catch (error) {
    if (error instanceof OutOfText) return { list: { kind: 'eof' }, broken: reader.broken };
    if (error instanceof NotPython) return { list: { kind: 'error' }, broken: reader.broken };
    throw error;
  }
}

/**
 * The broken string closed at each later quote of its kind that a value may end at (its inner
 * quotes read as text): the list when exactly one choice reads cleanly, else undefined.
 */
function recover(source: string, start: number, broken: Broken, literal: ReadonlySet<number>, budget: { reads: number }): PythonCallList | undefined {
  let found: PythonCallList | undefined;
  let candidates = 0;
  for (let at = source.indexOf(broken.char, broken.quote + 1); at >= 0 && candidates < MAX_CLOSER_CANDIDATES; at = source.indexOf(broken.char, at + 1)) {
    if (source[at - 1] === '\\' || !endsValueAt(source, at + 1)) continue;
    candidates++;
    if (budget.reads-- <= 0) return undefined;
    const forced = new Set(literal);
    for (let inner = broken.quote; inner < at; inner++) if (source[inner] === broken.char) forced.add(inner);
    const attempt = readOnce(source, start, true, forced);
    const clean = attempt.list.kind === 'calls' && attempt.list.malformed.length === 0;
    const list = clean ? attempt.list : attempt.broken && attempt.broken.quote > at ? recover(source, start, attempt.broken, forced, budget) : undefined;
    if (list && found) return undefined;
    found = list ?? found;
  }
  return found;
}

/** After a closing quote: optional spaces, then the end or what may follow a value (`,`, `)`, `]`, `}`, `:`). */
function endsValueAt(text: string, from: number): boolean {
  let at = from;
  while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++;
  return at >= text.length || ',)]}:'.includes(text[at]);
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_CHAR = /[A-Za-z0-9_]/;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', '\\': '\\', "'": "'", '"': '"' };

class Reader {
  private depth = 0;
  /** The first string (lenient reading) closed where no value may end. */
  broken: Broken | undefined;

  constructor(
    private readonly text: string,
    public pos: number,
    private readonly lenient = false,
    private readonly literalQuotes: ReadonlySet<number> = new Set(),
  ) {}

  /** Names of the calls skipped because their arguments could not be read. */
  readonly malformed: string[] = [];

  callList(): PythonCall[] {
    this.expect('[');
    const calls: PythonCall[] = [];
    for (;;) {
      this.spaces();
      if (this.peek() === ']' && calls.length + this.malformed.length > 0) break;
      const start = this.pos;
      try {
        calls.push(this.call());
      } catch (error) {
        // `name(` read, the arguments not: skip this one call, keep the others.
        if (!(error instanceof MalformedArguments)) throw error;
        this.pos = start;
        this.skipCall();
        this.malformed.push(error.callName);
      }
      this.spaces();
      if (this.peek() === ',') {
        this.pos++;
        continue;
      }
      if (this.peek() !== ']') throw NOT_PYTHON;
    }
    this.pos++;
    if (calls.length === 0) throw NOT_PYTHON;
    return calls;
  }

  /** Moves past one call whose arguments are malformed: to the `,` or `]` that follows it at depth 0. */
  private skipCall(): void {
    const text = this.text;
    let depth = 0;
    let quote = 0;
    // Bounded: from every opener of a degenerate answer this would otherwise run to the end.
    const limit = Math.min(text.length, this.pos + MAX_SKIPPED_CALL);
    for (let pos = this.pos; pos < limit; pos++) {
      const ch = text.charCodeAt(pos);
      if (quote !== 0) {
        if (ch === 92 /* \\ */) pos++;
        else if (ch === quote) quote = 0;
        else if (ch === 10 && !this.lenient) throw NOT_PYTHON;
      } else if (ch === 39 || ch === 34) quote = ch;
      else if (ch === 40 || ch === 91 || ch === 123) depth++;
      else if (ch === 41 || ch === 125 || (ch === 93 && depth > 0)) {
        if (--depth < 0) throw NOT_PYTHON;
      } else if (depth === 0 && (ch === 44 || ch === 93)) {
        this.pos = pos;
        return;
      }
    }
    if (limit < text.length) throw NOT_PYTHON;
    throw OUT_OF_TEXT;
  }


  private call(): PythonCall {
    let name = this.identifier();
    while (this.peek() === '.') {
      this.pos++;
      name += `.${this.identifier()}`;
    }
    this.spaces();
    this.expect('(');
    try {
      return { name, args: this.argumentsList() };
    } catch (error) {
      throw error instanceof NotPython ? malformed(name) : error;
    }
  }

  private argumentsList(): Record<string, unknown> {
    const args: Record<string, unknown> = {};
    for (;;) {
      this.spaces();
      if (this.peek() === ')') break;
      const key = this.identifier();
      this.spaces();
      this.expect('=');
      args[key] = this.value();
      this.spaces();
      if (this.peek() === ',') this.pos++;
      else if (this.peek() !== ')') throw NOT_PYTHON;
    }
    this.pos++;
    return args;
  }

  private value(): unknown {
    this.spaces();
    const ch = this.peek();
    if (ch === "'" || ch === '"') return this.string();
    if (ch === '[' || ch === '(' || ch === '{') return this.nested(ch);
    if (ch === '-' || ch === '+' || ch === '.' || /[0-9]/.test(ch)) return this.number();
    const word = this.identifier();
    if (word === 'True' || word === 'true') return true;
    if (word === 'False' || word === 'false') return false;
    if (word === 'None' || word === 'null') return null;
    throw NOT_PYTHON;
  }

  /** A list, tuple or dict, with the nesting bounded (the reader recurses). */
  private nested(open: string): unknown {
    if (++this.depth > MAX_PYTHON_NESTING) throw NOT_PYTHON;
    const value = open === '{' ? this.dict() : this.sequence(open, open === '[' ? ']' : ')');
    this.depth--;
    return value;
  }

  private sequence(open: string, close: string): unknown[] {
    this.expect(open);
    const items: unknown[] = [];
    for (;;) {
      this.spaces();
      if (this.peek() === close) break;
      items.push(this.value());
      this.spaces();
      if (this.peek() === ',') this.pos++;
      else if (this.peek() !== close) throw NOT_PYTHON;
    }
    this.pos++;
    return items;
  }

  /** A dict, or a set (`{'a', 'b'}`, read as a list: JSON has no sets). */
  private dict(): Record<string, unknown> | unknown[] {
    this.expect('{');
    const out: Record<string, unknown> = {};
    for (let first = true; ; first = false) {
      this.spaces();
      if (this.peek() === '}') break;
      const key = this.value();
      this.spaces();
      if (first && this.peek() !== ':') return this.setFrom(key);
      if (typeof key !== 'string' && typeof key !== 'number') throw NOT_PYTHON;
      this.expect(':');
      out[String(key)] = this.value();
      this.spaces();
      if (this.peek() === ',') this.pos++;
      else if (this.peek() !== '}') throw NOT_PYTHON;
    }
    this.pos++;
    return out;
  }

  /** The rest of a set whose first item was read. */
  private setFrom(first: unknown): unknown[] {
    const items = [first];
    for (;;) {
      this.spaces();
      if (this.peek() === '}') break;
      this.expect(',');
      this.spaces();
      if (this.peek() === '}') break;
      items.push(this.value());
    }
    this.pos++;
    return items;
  }

  private string(): string {
    const quote = this.peek();
    const triple = this.text.startsWith(quote.repeat(3), this.pos);
    const closer = triple ? quote.repeat(3) : quote;
    this.pos += closer.length;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) throw OUT_OF_TEXT;
      if (this.text.startsWith(closer, this.pos) && !this.literalQuotes.has(this.pos)) {
        if (this.lenient && !triple && !this.broken && !endsValueAt(this.text, this.pos + 1)) this.broken = { quote: this.pos, char: quote };
        this.pos += closer.length;
        return out;
      }
      const ch = this.text[this.pos];
      if (ch === '\n' && !triple && !this.lenient) throw NOT_PYTHON;
      if (ch !== '\\') {
        out += ch;
        this.pos++;
        continue;
      }
      const next = this.text[this.pos + 1];
      if (next === undefined) throw OUT_OF_TEXT;
      if (next === 'u' || next === 'x') {
        const size = next === 'u' ? 4 : 2;
        const hex = this.text.slice(this.pos + 2, this.pos + 2 + size);
        if (hex.length < size) throw OUT_OF_TEXT;
        if (!/^[0-9a-fA-F]+$/.test(hex)) throw NOT_PYTHON;
        out += String.fromCharCode(parseInt(hex, 16));
        this.pos += 2 + size;
        continue;
      }
      out += ESCAPES[next] ?? `\\${next}`;
      this.pos += 2;
    }
  }

  private number(): number {
    const match = /^[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 64));
    if (!match) throw this.pos >= this.text.length - 1 ? OUT_OF_TEXT : NOT_PYTHON;
    this.pos += match[0].length;
    // A number that touches the end of the text may still be growing.
    if (this.pos >= this.text.length) throw OUT_OF_TEXT;
    const value = Number(match[0].replace(/_/g, ''));
    if (!Number.isFinite(value)) throw NOT_PYTHON;
    return value;
  }

  private identifier(): string {
    const startPos = this.pos;
    if (this.pos >= this.text.length) throw OUT_OF_TEXT;
    if (!IDENT_START.test(this.text[this.pos])) throw NOT_PYTHON;
    while (this.pos < this.text.length && IDENT_CHAR.test(this.text[this.pos])) this.pos++;
    if (this.pos >= this.text.length) throw OUT_OF_TEXT;
    return this.text.slice(startPos, this.pos);
  }

  private spaces(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
    if (this.pos >= this.text.length) throw OUT_OF_TEXT;
  }

  private peek(): string {
    if (this.pos >= this.text.length) throw OUT_OF_TEXT;
    return this.text[this.pos];
  }

  private expect(ch: string): void {
    if (this.peek() !== ch) throw NOT_PYTHON;
    this.pos++;
  }
}
