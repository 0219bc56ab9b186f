import { isWhitespace } from './text/json-scan.js';
import { readCallSequence } from './formats/json-calls.js';
import { callsFromShapes } from './formats/shared.js';
import type { ScanEnv, ToolCallFormat } from './formats/types.js';
import type { ParseContext, ParsedCall } from './types.js';

// The one engine behind both whole-text parsing and streaming. It walks the text once, left to
// right; prose passes through, and at characters that can start a call block it asks the formats.
// Streaming feeds it text as it arrives (`final` false): it stops at the first position it cannot
// decide yet and resumes there, so a split never changes a decision — the streamed result equals
// the whole-text one by construction. Reasoning (`<think>…</think>`) and code (``` fences, `inline`)
// are walked over as prose: calls written inside them are examples, not calls — except a fence
// whose whole body is JSON tool calls (```json {"name": …, "arguments": …} ```), a real call style.

export type ScanSegment = { type: 'text'; text: string } | { type: 'calls'; calls: ParsedCall[]; format: string };

interface Walked {
  to: number;
  stop: boolean;
}

type Mode = { kind: 'normal' } | { kind: 'think'; closer: string } | { kind: 'fence'; ticks: number } | { kind: 'inline' };

const NORMAL: Mode = { kind: 'normal' };
const THINK_TAGS = [
  ['<think>', '</think>'],
  ['<thinking>', '</thinking>'],
] as const;
const JSON_FENCE_LANGS = new Set(['', 'json', 'json5', 'jsonc', 'tool_call', 'tool_calls', 'tool_code', 'function_call']);
const FENCED_FORMAT = 'json';
const FENCE_CLOSER = /^[ \t]{0,3}(`{3,})[ \t]*$/;
const FENCE_CLOSER_PREFIX = /^[ \t]{0,3}`*[ \t]*$/;

export class CallScanner {
  private text = '';
  private cursor = 0;
  private mode: Mode = NORMAL;
  private sawProse = false;
  /** The character just before `text` (text before the cursor is dropped as we go). */
  private charBeforeText = '\n';
  private readonly byTrigger = new Map<number, ToolCallFormat[]>();
  private readonly fencedCalls: boolean;
  /** Well-formed calls to undeclared tools, left as content. */
  rejectedNames = 0;

  constructor(
    private readonly ctx: ParseContext,
    formats: readonly ToolCallFormat[],
  ) {
    for (const format of formats) {
      for (const trigger of format.triggers) {
        const code = trigger.charCodeAt(0);
        const list = this.byTrigger.get(code) ?? [];
        list.push(format);
        this.byTrigger.set(code, list);
      }
    }
    this.fencedCalls = formats.some((format) => format.name === FENCED_FORMAT);
  }

  /** Adds text; returns what is decided. `final` says no more text will come. */
  push(delta: string, final = false): ScanSegment[] {
    this.text += delta;
    // A block that is still open is re-read only after its text grew by an eighth: long
    // arguments cost O(n log n) instead of O(n²). Verdicts never depend on where the text
    // stops (only `incomplete` does), so checking later cannot change any result.
    if (!final && this.text.length < this.recheckAt) return [];
    const segments = this.scan(final);
    this.compact();
    const pending = this.text.length - this.cursor;
    this.recheckAt = pending > 64 ? this.text.length + (pending >> 3) : 0;
    return segments;
  }

  /** Text length before which an open block is not re-read (see push). */
  private recheckAt = 0;

  private scan(final: boolean): ScanSegment[] {
    const out: ScanSegment[] = [];
    const text = this.text;
    let proseStart = this.cursor;
    let i = this.cursor;
    while (i < text.length) {
      const mode = this.mode;
      if (mode.kind !== 'normal') {
        const walked =
          mode.kind === 'think' ? this.walkThink(i, mode.closer, final) : mode.kind === 'fence' ? this.walkFence(i, mode.ticks, final) : this.walkInline(i, final);
        // Code is prose for "is this the answer's start"; reasoning is not.
        if (mode.kind !== 'think') this.noteProse(i, walked.to);
        i = walked.to;
        if (walked.stop) break;
        continue;
      }
      const trigger = this.nextTrigger(i);
      this.noteProse(i, trigger);
      i = trigger;
      if (i >= text.length) break;

      const engine = this.engineAt(i, final);
      if (engine === 'incomplete') break;
      if (engine !== undefined) {
        if (typeof engine === 'number') {
          i = engine;
        } else {
          if (i > proseStart) out.push({ type: 'text', text: text.slice(proseStart, i) });
          out.push(engine.segment);
          i = proseStart = engine.end;
        }
        continue;
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
        if (i > proseStart) out.push({ type: 'text', text: text.slice(proseStart, i) });
        out.push({ type: 'calls', calls: verdict.calls, format: verdict.format });
        i = proseStart = verdict.end;
      }
    }
    if (i > proseStart) out.push({ type: 'text', text: text.slice(proseStart, i) });
    this.cursor = i;
    return out;
  }

  /** Asks the formats triggered by the character at `i`, in order; the first verdict that is not plain `none` wins. */
  private formatsAt(
    i: number,
    final: boolean,
  ): 'incomplete' | undefined | { kind: 'skip'; to: number } | { kind: 'calls'; calls: ParsedCall[]; end: number; format: string } {
    const formats = this.byTrigger.get(this.text.charCodeAt(i));
    if (!formats) return undefined;
    const env = this.envAt(i, final);
    for (const format of formats) {
      const match = format.matchAt(this.text, i, this.ctx, env);
      if (match.kind === 'incomplete') return 'incomplete';
      if (match.kind === 'calls') return { kind: 'calls', calls: match.calls, end: match.end, format: format.name };
      this.rejectedNames += match.rejectedNames ?? 0;
      if (match.skipTo !== undefined && match.skipTo > i) return { kind: 'skip', to: match.skipTo };
    }
    return undefined;
  }

  /**
   * Reasoning and code regions. Returns where to continue (a region was entered or skipped),
   * a calls segment (a JSON fence holding calls), 'incomplete', or undefined (nothing here).
   */
  private engineAt(i: number, final: boolean): number | 'incomplete' | { segment: ScanSegment; end: number } | undefined {
    const text = this.text;
    const ch = text[i];
    if (ch === '<') {
      for (const [open, close] of THINK_TAGS) {
        if (text.startsWith(open, i)) {
          this.mode = { kind: 'think', closer: close };
          return i + open.length;
        }
        if (!final && text.length - i < open.length && open.startsWith(text.slice(i))) return 'incomplete';
      }
      return undefined;
    }
    if (ch !== '`') return undefined;
    let ticks = 1;
    while (text[i + ticks] === '`') ticks++;
    // A run of backticks touching the end may still grow (` vs ```): wait.
    if (i + ticks >= text.length && !final) return 'incomplete';
    const lineStart = this.isLineStart(i);
    if (!lineStart || ticks < 3) {
      this.mode = { kind: 'inline' };
      return i + ticks;
    }
    return this.fenceAt(i, ticks, final);
  }

  private fenceAt(i: number, ticks: number, final: boolean): number | 'incomplete' | { segment: ScanSegment; end: number } {
    const text = this.text;
    const infoEnd = text.indexOf('\n', i + ticks);
    if (infoEnd < 0 && !final) return 'incomplete';
    const bodyStart = infoEnd < 0 ? text.length : infoEnd + 1;
    const lang = text.slice(i + ticks, bodyStart).trim().split(/\s/)[0].toLowerCase();
    const firstBodyChar = text.slice(bodyStart).trimStart()[0];
    if (this.fencedCalls && JSON_FENCE_LANGS.has(lang) && (firstBodyChar === undefined || firstBodyChar === '{' || firstBodyChar === '[')) {
      if (firstBodyChar === undefined && !final) return 'incomplete';
      const closer = this.findFenceCloser(bodyStart, ticks, final);
      if (closer === 'incomplete') return 'incomplete';
      const body = text.slice(bodyStart, closer?.start ?? text.length);
      const end = closer?.end ?? text.length;
      const sequence = readCallSequence(body, body.length - body.trimStart().length, true, true);
      if (sequence.kind === 'shapes' && body.slice(sequence.end).trim() === '') {
        const match = callsFromShapes(sequence.shapes, this.ctx, end);
        if (match.kind === 'calls') return { segment: { type: 'calls', calls: match.calls, format: FENCED_FORMAT }, end };
        this.rejectedNames += match.kind === 'none' ? (match.rejectedNames ?? 0) : 0;
      }
      this.noteProse(i, end);
      return end;
    }
    this.mode = { kind: 'fence', ticks };
    this.noteProse(i, bodyStart);
    return bodyStart;
  }

  /** The closing fence line at or after `from` (a line start). */
  private findFenceCloser(from: number, ticks: number, final: boolean): { start: number; end: number } | 'incomplete' | null {
    const text = this.text;
    let lineStart = from;
    while (lineStart <= text.length) {
      const newline = text.indexOf('\n', lineStart);
      const lineEnd = newline < 0 ? text.length : newline;
      const line = text.slice(lineStart, lineEnd);
      const closer = FENCE_CLOSER.exec(line);
      if (newline < 0) {
        if (!final && FENCE_CLOSER_PREFIX.test(line)) return 'incomplete';
        if (closer && closer[1].length >= ticks) return { start: lineStart, end: lineEnd };
        return final ? null : 'incomplete';
      }
      if (closer && closer[1].length >= ticks) return { start: lineStart, end: lineEnd };
      lineStart = newline + 1;
    }
    return final ? null : 'incomplete';
  }

  // Region walkers: `to` is how far the region's prose is decided; `stop` means wait for more text.

  private walkThink(i: number, closer: string, final: boolean): Walked {
    const text = this.text;
    const found = text.indexOf(closer, i);
    if (found >= 0) {
      this.mode = NORMAL;
      return { to: found + closer.length, stop: false };
    }
    if (final) return { to: text.length, stop: false };
    // Release all but a suffix that could be the start of the closing tag.
    let keep = Math.min(closer.length - 1, text.length - i);
    while (keep > 0 && !closer.startsWith(text.slice(text.length - keep))) keep--;
    return { to: text.length - keep, stop: true };
  }

  private walkFence(i: number, ticks: number, final: boolean): Walked {
    const text = this.text;
    let lineStart = i;
    if (!this.isAfterNewline(i)) {
      const newline = text.indexOf('\n', i);
      if (newline < 0) return { to: text.length, stop: !final };
      lineStart = newline + 1;
    }
    const closer = this.findFenceCloser(lineStart, ticks, final);
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
      if (code === 60 /* < */ || code === 96 /* ` */ || this.byTrigger.has(code)) return i;
    }
    return text.length;
  }

  private noteProse(from: number, to: number): void {
    if (this.sawProse) return;
    for (let i = from; i < to; i++) {
      if (!isWhitespace(this.text.charCodeAt(i))) {
        this.sawProse = true;
        return;
      }
    }
  }

  private envAt(i: number, final: boolean): ScanEnv {
    return {
      final,
      atAnswerStart: !this.sawProse,
      atLineStart: this.isLineStart(i),
      prevChar: i > 0 ? this.text[i - 1] : this.charBeforeText,
    };
  }

  private isLineStart(i: number): boolean {
    let j = i - 1;
    while (j >= 0 && (this.text[j] === ' ' || this.text[j] === '\t')) j--;
    return j < 0 ? this.charBeforeText === '\n' : this.text[j] === '\n';
  }

  private isAfterNewline(i: number): boolean {
    return (i > 0 ? this.text[i - 1] : this.charBeforeText) === '\n';
  }

  /** Drops decided text; keeps what line-start checks need. */
  private compact(): void {
    if (this.cursor === 0) return;
    const lineStart = this.isLineStart(this.cursor);
    const before = this.text[this.cursor - 1];
    this.text = this.text.slice(this.cursor);
    // Only "is this a line start" and "the previous character" are ever asked about the past.
    this.charBeforeText = lineStart ? '\n' : before;
    this.cursor = 0;
  }
}
