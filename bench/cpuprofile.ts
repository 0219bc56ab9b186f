import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT_DIR, round } from './common.js';

// Summarizes a V8 .cpuprofile (node --cpu-prof): top functions by self time, the project's own
// functions by inclusive time (self + callees), and self time grouped by package / file.
// Standalone: node --import tsx bench/cpuprofile.ts <file.cpuprofile> [top=25]

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionTime {
  function: string;
  location: string;
  ms: number;
  pct: number;
}

export interface ProfileSummary {
  file: string;
  wallMs: number;
  /** Samples counted: only those inside the measured window when one was given. */
  window: 'measured run only' | 'whole process';
  /** Sampled time excluding (idle). */
  busyMs: number;
  idlePct: number;
  topSelf: FunctionTime[];
  /** src/ (or dist/) functions by inclusive time. */
  topOwnInclusive: FunctionTime[];
  byGroup: Array<{ group: string; ms: number; pct: number }>;
  /** Filled in by the runner: requests completed in the window and CPU per request. */
  requests?: number;
  cpuUsPerRequest?: number;
}

function location(frame: CallFrame): string {
  if (!frame.url) return '';
  let path = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url;
  if (path.startsWith('/')) path = relative(ROOT_DIR, path);
  return `${path}:${frame.lineNumber + 1}`;
}

function key(frame: CallFrame): string {
  return `${frame.functionName || '(anonymous)'} ${location(frame)}`;
}

/** Where time goes, coarsely: a package, a project file, node internals or a VM bucket. */
function group(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node:internals';
  const own = /\/(src|dist)\/(.+?)(\.[jt]s)?$/.exec(url);
  if (own) return `${own[1]}/${own[2].split('/')[0]}`;
  return 'other';
}

const isOwn = (frame: CallFrame): boolean => /\/(src|dist)\//.test(frame.url) && !frame.url.includes('node_modules');

/** A time window in µs of the monotonic clock (process.hrtime.bigint() / 1000n in any process). */
export interface Window {
  startUs: number;
  endUs: number;
}

export function hrtimeUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Summarizes the samples taken inside `window` (default: the whole profile, startup included). */
export function summarizeCpuProfile(file: string, top = 25, window?: Window): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const groups = new Map<string, number>();
  let total = 0;
  let idle = 0;
  const frames = new Map<string, CallFrame>();
  let at = profile.startTime;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.startUs || at > window.endUs)) continue;
    first = Math.min(first, at);
    last = Math.max(last, at);
    const dt = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000; // µs → ms
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    total += dt;
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    const k = key(node.callFrame);
    frames.set(k, node.callFrame);
    self.set(k, (self.get(k) ?? 0) + dt);
    const g = group(node.callFrame);
    groups.set(g, (groups.get(g) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = (byId.get(id) as ProfileNode).callFrame;
      if (!isOwn(frame)) continue;
      const fk = key(frame);
      if (seen.has(fk)) continue;
      seen.add(fk);
      frames.set(fk, frame);
      inclusive.set(fk, (inclusive.get(fk) ?? 0) + dt);
    }
  }
  const busy = total - idle;
  const rank = (map: Map<string, number>): FunctionTime[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => {
        const frame = frames.get(k) as CallFrame;
        return { function: frame.functionName || '(anonymous)', location: location(frame), ms: round(ms, 1), pct: round((100 * ms) / busy, 1) };
      });
  return {
    file: relative(ROOT_DIR, file),
    window: window ? 'measured run only' : 'whole process',
    wallMs: round((window ? last - first : profile.endTime - profile.startTime) / 1000, 0),
    busyMs: round(busy, 0),
    idlePct: round((100 * idle) / total, 1),
    topSelf: rank(self),
    topOwnInclusive: rank(inclusive),
    byGroup: [...groups.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([g, ms]) => ({ group: g, ms: round(ms, 0), pct: round((100 * ms) / busy, 1) })),
  };
}

export function profileMarkdown(title: string, summary: ProfileSummary, top = 15): string {
  const lines = [
    `#### ${title}`,
    '',
    `\`${summary.file}\` (${summary.window}) — ${summary.wallMs} ms wall, ${summary.busyMs} ms on CPU (idle ${summary.idlePct}%)${summary.cpuUsPerRequest !== undefined ? `, ${summary.requests} requests → **${summary.cpuUsPerRequest} µs CPU per request**` : ''}. Percentages are of CPU time.`,
    '',
    '| self % | self ms | function | location |',
    '|---:|---:|---|---|',
    ...summary.topSelf.slice(0, top).map((f) => `| ${f.pct} | ${f.ms} | \`${f.function}\` | ${f.location} |`),
    '',
    ...(summary.topOwnInclusive.length > 0
      ? [
          '| inclusive % | toolgate function | location |',
          '|---:|---|---|',
          ...summary.topOwnInclusive.slice(0, top).map((f) => `| ${f.pct} | \`${f.function}\` | ${f.location} |`),
          '',
        ]
      : []),
    '| self % by group | group |',
    '|---:|---|',
    ...summary.byGroup.slice(0, 12).map((g) => `| ${g.pct} | ${g.group} |`),
    '',
  ];
  return lines.join('\n');
}

/**
 * Who calls the functions whose name (or location) contains `needle`: self time aggregated by
 * the caller chain `depth` frames up. For digging into one hot spot.
 */
export function callers(file: string, needle: string, depth = 4, top = 15): Array<{ chain: string; ms: number }> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const chains = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    if (!node || !key(node.callFrame).includes(needle)) continue;
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const parts: string[] = [];
    let id: number | undefined = node.id;
    for (let d = 0; d <= depth && id !== undefined; d++, id = parent.get(id)) parts.push(key((byId.get(id) as ProfileNode).callFrame));
    const chain = parts.join('\n    ← ');
    chains.set(chain, (chains.get(chain) ?? 0) + dt);
  }
  return [...chains.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([chain, ms]) => ({ chain, ms: round(ms, 1) }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: cpuprofile.ts <file.cpuprofile> [top] | cpuprofile.ts <file> --callers=<name> [depth]');
  const needle = process.argv.find((arg) => arg.startsWith('--callers='))?.slice('--callers='.length);
  if (needle !== undefined) {
    const depth = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 4);
    for (const { chain, ms } of callers(file, needle, depth)) process.stdout.write(`${ms} ms  ${chain}\n\n`);
  } else {
    const top = Number(process.argv[3] ?? 25);
    process.stdout.write(`${profileMarkdown(file, summarizeCpuProfile(file, top), top)}\n`);
  }
}
