import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { diffArrays as DiffArrays } from 'diff';
import type { Finding } from '../repair/types.js';
import type { RepairNote } from '../pipeline/request-info.js';
import { viewOf, type ViewOptions } from './view.js';

// The before/after of a repair: the client's list (messages or Responses items) and the list
// that went upstream, aligned by jsdiff's Myers diff. Repair passes return the messages they did
// not change as the same objects, so most comparisons are one identity check; other pairs compare
// a digest of their JSON, computed once per element. Myers costs O((N+M)·D) for D edits:
// maxEditLength bounds D, and a history changed in more places than that is shown as one hunk
// between the unchanged head and tail (cut to MAX_SIDE elements a side).

// jsdiff (~0.6 MB of heap) is required at the first diff: with the inspector off (the default) it is
// never loaded. require keeps the call synchronous; its CommonJS build is the same code.
let jsdiff: typeof DiffArrays | undefined;

function diffArrays(): typeof DiffArrays {
  jsdiff ??= (createRequire(import.meta.url)('diff') as typeof import('diff')).diffArrays;
  return jsdiff;
}

/** One changed run: `before` replaced by `after`, at these indexes of each list. */
export interface Hunk {
  beforeIndex: number;
  afterIndex: number;
  before: unknown[];
  after: unknown[];
  /** Indexes into the record's findings that point into this run. */
  findings: number[];
}

export interface RepairDiff {
  target: RepairNote['target'];
  beforeCount: number;
  afterCount: number;
  hunks: Hunk[];
  /** Some hunks or elements were left out (too many edits or elements). */
  truncated?: boolean;
}

const MAX_EDITS = 256;
const MAX_HUNKS = 32;
const MAX_SIDE = 24;

/** Equal elements: the same object, or the same JSON (digests cached per element). */
export function sameElement(): (a: unknown, b: unknown) => boolean {
  const digests = new Map<unknown, string>();
  const digestOf = (value: unknown): string => {
    let known = digests.get(value);
    if (known === undefined) {
      known = createHash('sha1').update(JSON.stringify(value) ?? 'undefined').digest('base64');
      digests.set(value, known);
    }
    return known;
  };
  return (a, b) => a === b || digestOf(a) === digestOf(b);
}

export function repairDiff(note: RepairNote, findingOffset: number, options: ViewOptions): RepairDiff {
  const runs = alignedRuns(note.before, note.after, sameElement());
  const truncated = runs.truncated || runs.list.length > MAX_HUNKS;
  const hunks = runs.list.slice(0, MAX_HUNKS).map((run): Hunk => {
    const cut = run.beforeCount > MAX_SIDE || run.afterCount > MAX_SIDE;
    return {
      beforeIndex: run.beforeIndex,
      afterIndex: run.afterIndex,
      before: note.before.slice(run.beforeIndex, run.beforeIndex + Math.min(run.beforeCount, MAX_SIDE)).map((item) => viewOf(item, options)),
      after: note.after.slice(run.afterIndex, run.afterIndex + Math.min(run.afterCount, MAX_SIDE)).map((item) => viewOf(item, options)),
      findings: findingsIn(note.findings, run.afterIndex, Math.max(run.afterCount, 1), findingOffset),
      ...(cut ? { cut: true } : {}),
    };
  });
  return { target: note.target, beforeCount: note.before.length, afterCount: note.after.length, hunks, ...(truncated ? { truncated: true } : {}) };
}

interface Run {
  beforeIndex: number;
  beforeCount: number;
  afterIndex: number;
  afterCount: number;
}

/** The changed runs between two lists. */
export function alignedRuns<T>(before: readonly T[], after: readonly T[], same: (a: T, b: T) => boolean = (a, b) => a === b): { list: Run[]; truncated: boolean } {
  const changes = diffArrays()([...before], [...after], { maxEditLength: MAX_EDITS, comparator: same });
  if (!changes) return { list: [headTailRun(before, after, same)], truncated: true };
  const list: Run[] = [];
  let b = 0;
  let a = 0;
  let open: Run | undefined;
  for (const change of changes) {
    const count = change.count ?? change.value.length;
    if (!change.added && !change.removed) {
      if (open) list.push(open);
      open = undefined;
      b += count;
      a += count;
      continue;
    }
    open ??= { beforeIndex: b, beforeCount: 0, afterIndex: a, afterCount: 0 };
    if (change.removed) {
      open.beforeCount += count;
      b += count;
    } else {
      open.afterCount += count;
      a += count;
    }
  }
  if (open) list.push(open);
  return { list, truncated: false };
}

/** Everything between the common head and tail, as one run. */
function headTailRun<T>(before: readonly T[], after: readonly T[], same: (a: T, b: T) => boolean): Run {
  let head = 0;
  while (head < before.length && head < after.length && same(before[head], after[head])) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && same(before[before.length - 1 - tail], after[after.length - 1 - tail])) tail++;
  return { beforeIndex: head, beforeCount: before.length - head - tail, afterIndex: head, afterCount: after.length - head - tail };
}

function findingsIn(findings: readonly Finding[], from: number, count: number, offset: number): number[] {
  const out: number[] = [];
  findings.forEach((finding, index) => {
    if (finding.index >= from && finding.index < from + count) out.push(offset + index);
  });
  return out;
}
