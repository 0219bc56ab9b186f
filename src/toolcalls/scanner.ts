import { byTriggerOf, literalAt, releaseSearches, triggerTableOf, type TriggerTable, wrapperStartsOf } from './formats/shared.js';
import type { ScanEnv, ToolCallFormat } from './formats/types.js';
import { REASONING_WRAPPERS, type ReasoningWrapper } from './reasoning.js';
import { findFenceCloser, mayHoldJsonCalls, readFencedCalls } from './scanner-fence.js';
import { type ScanSegment, blockOf } from './scanner-segments.js';
import { isWhitespace, releaseJsonStructures } from './text/json-scan.js';
import type { ParseContext } from './types.js';

// The one engine behind both whole-text parsing and streaming. It walks the text once, left to
// right; prose passes through, and at characters that can start a call block it asks the formats.
// Streaming feeds it text as it arrives (`final` false): it stops at the first position it cannot
// decide yet and resumes there, so a split never changes a decision — the streamed result equals
// the whole-text one by construction. Code (``` fences, `inline`) is walked over as prose: calls
// written inside are examples, not calls — except a fence whose whole body is JSON tool calls
// (```json {"name": …, "arguments": …} ```), a real call style. Reasoning (see reasoning.ts) comes
// out as reasoning segments: a closed block never holds calls; in a block that never closes only
// the model's own call markers count (formats see `env.inReasoning`).

import { ExplanationCues } from './scanner-cues.js';
import { LinePosition } from './scanner-lines.js';
export type { ScanSegment } from './scanner-segments.js';

interface Walked {
  to: number;
  stop: boolean;
}

/** `think`: inside a reasoning wrapper; `unclosed` once the text is final and its closer never came. */
type Mode =
  | { kind: 'normal' }
  | { kind: 'think'; closer: string; unclosed: boolean }
  | { kind: 'fence'; ticks: number }
  | { kind: 'inline' };

type Verdict = 'incomplete' | undefined | { kind: 'skip'; to: number } | { kind: 'block'; segments: ScanSegment[]; end: number };

const NORMAL: Mode = { kind: 'normal' };
/** See push: held-back text under 256 characters waits for at most this many new ones before it is read again. */
const RECHECK_MIN_GROWTH = 32;
const FENCED_FORMAT = 'json';

export class CallScanner {
  private text = '';
  private cursor = 0;
  private mode: Mode = NORMAL;
  private sawProse = false;
  /** Whether the answer's prose so far explains or shows calls (scanner-cues.ts): guesses are off then. */
  private readonly cues = new ExplanationCues();
  /** Line-start facts about text already dropped (text before the cursor is dropped as we go). */
  private readonly lines = new LinePosition();
  private byTrigger: TriggerTable;
  private readonly formats: readonly ToolCallFormat[];
  private readonly wrapperStarts: ReadonlySet<number>;
  private readonly fencedCalls: boolean;
  /** Well-formed calls to undeclared tools, left as content. */
  rejectedNames = 0;
  /** Calls left out of a call block because they could not be read (see BlockMatch `malformed`). */
  malformedCalls = 0;

  constructor(
    private readonly ctx: ParseContext,
    formats: readonly ToolCallFormat[],
    private readonly wrappers: readonly ReasoningWrapper[] = REASONING_WRAPPERS,
  ) {
    this.byTrigger = triggerTableOf(formats);
    this.formats = formats;
    this.wrapperStarts = wrapperStartsOf(wrappers);
    this.fencedCalls = formats.some((format) => format.name === FENCED_FORMAT);
  }

  /** Adds text; returns what is decided. `final` says no more text will come. */
  push(delta: string, final = false): ScanSegment[] {
    this.text += delta;
    // A block that is still open is re-read only after its text grew by an eighth (a short one:
    // by half, up to RECHECK_MIN_GROWTH characters): long arguments cost O(n log n) instead
    // of O(n²), and a held-back opener is not re-read for every few-character delta.
    // Verdicts never depend on where the text stops (only `incomplete` does), so checking later
    // cannot change any result.
    if (!final && this.text.length < this.recheckAt) return [];
    // The last pass over what was held back asks only the formats whose markers occur in it, as a
    // whole-text parse does (a format's `detect` is only sound once no more text can come).
    if (final) this.byTrigger = byTriggerOf(this.formats.filter((format) => format.detect(this.text)));
    const out: ScanSegment[] = [];
    try {
      this.scan(final, out);
    } finally {
      releaseJsonStructures();
      releaseSearches();
    }
    this.compact();
    const pending = this.text.length - this.cursor;
    this.recheckAt = pending > 0 ? this.text.length + Math.max(pending >> 3, Math.min(pending >> 1, RECHECK_MIN_GROWTH)) : 0;
    return out;
  }

  /**
   * The text was cut off (the upstream stopped mid-answer, finish_reason `length`): decides what it
   * can as if more text could come, then releases what was held back as it was written. A block the
   * cut went through is never completed into a call.
   */
  endCutOff(): ScanSegment[] {
    this.recheckAt = 0;
    const out = this.push('', false);
    const rest = this.text.slice(this.cursor);
    if (rest !== '') {
      out.push(this.proseSegment(rest));
      this.cursor = this.text.length;
      this.compact();
    }
    return out;
  }

  /**
   * push(delta) for the usual streamed token, in one step: nothing held back, no block open, and no
   * character in `delta` that could start one, so all of it is prose. True when taken (the caller
   * emits it as one text segment); the state is what push would leave. False: call push.
   */
  takeProse(delta: string): boolean {
    if (this.text !== '' || this.mode.kind !== 'normal' || this.lines.lineStartAt !== -1 || delta === '') return false;
    let prose = false;
    for (let i = 0; i < delta.length; i++) {
      const code = delta.charCodeAt(i);
      if (code === 60 /* < */ || code === 96 /* ` */ || this.byTrigger.has(code) || this.wrapperStarts.has(code)) return false;
      prose ||= !isWhitespace(code);
    }
    if (prose) this.sawProse = true;
    this.cues.note(delta);
    this.lines.passed(delta);
    return true;
  }

  /** Text length before which an open block is not re-read (see push). */
  private recheckAt = 0;

  private scan(final: boolean, out: ScanSegment[]): void {
    const text = this.text;
    let proseStart = this.cursor;
    let i = this.cursor;
    const flush = (to: number): void => {
      if (to > proseStart) out.push(this.proseSegment(text.slice(proseStart, to)));
      proseStart = to;
    };
    while (i < text.length) {
      const mode = this.mode;
      if (mode.kind === 'think' && !mode.unclosed) {
        const walked = this.walkThink(i, mode.closer, final);
        flush(walked.to);
        if (walked.closed) {
          // The closer itself: markup, not reasoning.
          this.mode = NORMAL;
          out.push({ type: 'reasoning', text: '', raw: mode.closer });
          i = proseStart = this.lines.lineStartAt = walked.to + mode.closer.length;
          continue;
        }
        if (final) this.mode = { ...mode, unclosed: true };
        i = walked.to;
        if (walked.stop) break;
        continue;
      }
      if (mode.kind === 'fence' || mode.kind === 'inline') {
        const walked = mode.kind === 'fence' ? this.walkFence(i, mode.ticks, final) : this.walkInline(i, final);
        this.noteProse(i, walked.to);
        i = walked.to;
        if (walked.stop) break;
        continue;
      }
      const trigger = this.nextTrigger(i);
      this.noteProse(i, trigger);
      i = trigger;
      if (i >= text.length) break;

      if (mode.kind === 'normal') {
        const engine = this.engineAt(i, final);
        if (engine === 'incomplete') break;
        if (engine !== undefined) {
          if (engine.kind === 'wrapper') {
            flush(i);
            this.mode = { kind: 'think', closer: engine.close, unclosed: false };
            out.push({ type: 'reasoning', text: '', raw: engine.open });
            i = proseStart = i + engine.open.length;
          } else if (engine.kind === 'to') {
            i = engine.to;
          } else {
            flush(i);
            out.push(...engine.segments);
            i = proseStart = engine.end;
          }
          continue;
        }
      }

      const verdict = this.formatsAt(i, final);
      if (verdict === 'incomplete') break;
      if (verdict === undefined) {
        this.noteProse(i, i + 1);
        i++;
      } else if (verdict.kind === 'skip') {
        this.noteProse(i, verdict.to);
        i = verdict.to;
      } else {
        flush(i);
        out.push(...verdict.segments);
        i = proseStart = verdict.end;
      }
    }
    flush(i);
    this.cursor = i;
  }

  /** Prose of the current mode: reasoning inside a wrapper, content elsewhere. */
  private proseSegment(text: string): ScanSegment {
    return this.mode.kind === 'think' ? { type: 'reasoning', text, raw: text } : { type: 'text', text };
  }

  /** Asks the formats triggered by the character at `i`, in order; the first verdict that is not plain `none` wins. */
  private formatsAt(i: number, final: boolean, countRejected = true): Verdict {
    const formats = this.byTrigger.get(this.text.charCodeAt(i));
    if (!formats) return undefined;
    const env = this.envAt(i, final);
    for (const format of formats) {
      const match = format.matchAt(this.text, i, this.ctx, env);
      if (match.kind === 'incomplete') return 'incomplete';
      const block = blockOf(match, format.name);
      if (block) {
        if (match.kind === 'calls' || match.kind === 'segments') this.malformedCalls += match.malformed ?? 0;
        return block;
      }
      if (match.kind !== 'none') continue;
      if (countRejected && this.mode.kind !== 'think') this.rejectedNames += match.rejectedNames ?? 0;
      if (match.skipTo !== undefined && match.skipTo > i) return { kind: 'skip', to: match.skipTo };
    }
    return undefined;
  }

  /**
   * Reasoning and code regions. Returns a wrapper opener that was entered, where to continue (a
   * region was entered or skipped), a block (a JSON fence holding calls), 'incomplete', or undefined.
   */
  private engineAt(
    i: number,
    final: boolean,
  ): 'incomplete' | undefined | { kind: 'wrapper'; open: string; close: string } | { kind: 'to'; to: number } | { kind: 'block'; segments: ScanSegment[]; end: number } {
    const text = this.text;
    const code = text.charCodeAt(i);
    if (this.wrapperStarts.has(code)) {
      for (const wrapper of this.wrappers) {
        if (text.startsWith(wrapper.open, i)) return { kind: 'wrapper', open: wrapper.open, close: wrapper.close };
        if (text.startsWith(wrapper.close, i)) {
          // A closer without its opener (the chat template opened the block): what follows starts the answer.
          this.sawProse = false;
          this.cues.reset();
          this.lines.lineStartAt = i + wrapper.close.length;
          return { kind: 'to', to: i + wrapper.close.length };
        }
        if (!final && (literalAt(text, i, wrapper.open) === 'partial' || literalAt(text, i, wrapper.close) === 'partial')) return 'incomplete';
      }
    }
    if (code !== 96 /* ` */) return undefined;
    let ticks = 1;
    while (text[i + ticks] === '`') ticks++;
    // A run of backticks touching the end may still grow (` vs ```): wait.
    if (i + ticks >= text.length && !final) return 'incomplete';
    if (!this.lines.isLineStart(this.text, i) || ticks < 3) {
      this.mode = { kind: 'inline' };
      return { kind: 'to', to: i + ticks };
    }
    return this.fenceAt(i, ticks, final);
  }

  private fenceAt(i: number, ticks: number, final: boolean): 'incomplete' | { kind: 'to'; to: number } | { kind: 'block'; segments: ScanSegment[]; end: number } {
    const text = this.text;
    const infoEnd = text.indexOf('\n', i + ticks);
    if (infoEnd < 0 && !final) return 'incomplete';
    const bodyStart = infoEnd < 0 ? text.length : infoEnd + 1;
    if (this.fencedCalls && !this.cues.explaining && mayHoldJsonCalls(text, i + ticks, bodyStart)) {
      const read = readFencedCalls(text, bodyStart, ticks, final, this.ctx);
      if (read === 'incomplete') return 'incomplete';
      if (read.calls) return { kind: 'block', segments: [{ type: 'calls', calls: read.calls, format: FENCED_FORMAT }], end: read.end };
      this.rejectedNames += read.rejectedNames;
      this.noteProse(i, read.end);
      return { kind: 'to', to: read.end };
    }
    this.mode = { kind: 'fence', ticks };
    this.noteProse(i, bodyStart);
    return { kind: 'to', to: bodyStart };
  }

  // Region walkers: `to` is how far the region's prose is decided; `stop` means wait for more text.

  /**
   * Inside a reasoning wrapper. Up to its closer everything is reasoning. While the closer has not
   * come, reasoning is released up to the first place a call block could start (calls there count
   * only if the wrapper never closes, which only the end of the text tells).
   */
  private walkThink(i: number, closer: string, final: boolean): Walked & { closed?: boolean } {
    const text = this.text;
    const found = text.indexOf(closer, i);
    if (found >= 0) return { to: found, stop: false, closed: true };
    if (final) return { to: i, stop: false };
    // Release all but a suffix that could be the start of the closing tag…
    let keep = Math.min(closer.length - 1, text.length - i);
    while (keep > 0 && !closer.startsWith(text.slice(text.length - keep))) keep--;
    // …and all before a position where a call block may be starting.
    return { to: this.firstCallCandidate(i, text.length - keep), stop: true };
  }

  /** The first position in [from, to) where some format sees (or may see) a call block; `to` if none. */
  private firstCallCandidate(from: number, to: number): number {
    let i = from;
    while (i < to) {
      i = this.nextTrigger(i);
      if (i >= to) return to;
      const verdict = this.formatsAt(i, false, false);
      if (verdict === undefined) i++;
      else if (verdict !== 'incomplete' && verdict.kind === 'skip') i = verdict.to;
      else return i;
    }
    return to;
  }

  private walkFence(i: number, ticks: number, final: boolean): Walked {
    const text = this.text;
    let lineStart = i;
    if (!this.lines.isAfterNewline(this.text, i)) {
      const newline = text.indexOf('\n', i);
      if (newline < 0) return { to: text.length, stop: !final };
      lineStart = newline + 1;
    }
    const closer = findFenceCloser(text, lineStart, ticks, final);
    if (closer === 'incomplete') return { to: Math.max(i, text.lastIndexOf('\n') + 1), stop: true };
    this.mode = NORMAL;
    return { to: closer ? closer.end : text.length, stop: false };
  }

  private walkInline(i: number, final: boolean): Walked {
    const text = this.text;
    for (let j = i; j < text.length; j++) {
      const ch = text[j];
      if (ch === '`' || ch === '\n') {
        let end = j + 1;
        while (ch === '`' && text[end] === '`') end++;
        // The closing run must be whole before the next character is judged.
        if (end >= text.length && ch === '`' && !final) return { to: j, stop: true };
        this.mode = NORMAL;
        return { to: end, stop: false };
      }
    }
    return { to: text.length, stop: false };
  }

  private nextTrigger(from: number): number {
    const text = this.text;
    for (let i = from; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 60 /* < */ || code === 96 /* ` */ || this.byTrigger.has(code) || this.wrapperStarts.has(code)) return i;
    }
    return text.length;
  }

  private noteProse(from: number, to: number): void {
    if (this.mode.kind !== 'think' && to > from) this.cues.note(this.text.slice(from, to));
    if (this.sawProse || this.mode.kind === 'think') return;
    for (let i = from; i < to; i++) {
      if (!isWhitespace(this.text.charCodeAt(i))) {
        this.sawProse = true;
        return;
      }
    }
  }

  private envAt(i: number, final: boolean): ScanEnv {
    const inReasoning = this.mode.kind === 'think';
    return {
      final,
      atAnswerStart: !this.sawProse && !inReasoning,
      atLineStart: this.lines.isLineStart(this.text, i),
      prevChar: this.lines.prevChar(this.text, i),
      prevNonBlank: this.lines.nonBlankBefore(this.text, i),
      // Formats answer only their own markers there, as in an unclosed reasoning block.
      ...(inReasoning || this.cues.explaining ? { inReasoning: true } : {}),
    };
  }

  /** Drops decided text; keeps what line-start checks need. */
  private compact(): void {
    if (this.cursor === 0) return;
    this.lines.drop(this.text, this.cursor);
    this.text = this.text.slice(this.cursor);
    this.cursor = 0;
  }
}
