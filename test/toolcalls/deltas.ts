import { parseWithDetails } from '../../src/toolcalls/parse.js';
import type { ParseContext } from '../../src/toolcalls/types.js';
import { fastestCpuMs, growthRatio } from '../helpers/growth.js';
import { FULL_VOLUME } from '../helpers/volume.js';

// Shared by the streaming and growth tests of the text-call parsers: seeded splits into small
// deltas (every run checks the same splits), and best-of-N costs for growth ratios.

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of the text: a seed that differs per case but not per run. */
export function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The text cut into 1–4 character deltas, drawn from `random`. */
export function smallDeltas(text: string, random: () => number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(random() * 4);
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

/** `unit` repeated to exactly `size` characters. */
export const repeatTo = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/**
 * Fastest of five runs of parsing `text` `times` times, in ms of this process's CPU time (at least 1:
 * timer noise). CPU time, not wall time: other processes on a busy machine do not inflate it.
 */
export function bestParseTime(text: string, times: number, ctx: ParseContext): number {
  // Best of five in CI, of two by default (test/helpers/volume.ts).
  const best = fastestCpuMs(FULL_VOLUME ? 5 : 2, () => {
    for (let i = 0; i < times; i++) parseWithDetails(text, ctx);
  });
  return Math.max(best, 1);
}

/** For each opener: 200 KB of it repeated once costs about what 50 KB four times does (linear ≈ 1, quadratic ≈ 4). */
export function checkOpenerGrowth(t: { ok(value: boolean, message: string): void }, openers: Record<string, string>, ctx: ParseContext): void {
  for (const [name, unit] of Object.entries(openers)) {
    bestParseTime(repeatTo(unit, 10_000), 1, ctx); // warm-up
    const { small, large, ratio, pairs } = growthRatio(() => ({ small: bestParseTime(repeatTo(unit, 50_000), 8, ctx), large: bestParseTime(repeatTo(unit, 200_000), 2, ctx) }), 3);
    t.ok(ratio < 3, `${name}: 8 × 50 KB ${small.toFixed(1)} ms, 2 × 200 KB ${large.toFixed(1)} ms (pairs measured: ${pairs})`);
  }
}
