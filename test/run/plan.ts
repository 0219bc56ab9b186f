import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The suite's files, in the order the lanes take them (test/run/lane.ts). Most files share a lane
// process with others, which saves per file a node start, tap's and tsx's loaders and the app's
// module graph (~1.5 s of CPU each). The files below start in a fresh process, as `npx tap <file>`
// starts them, for the reason given.

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const OWN_PROCESS: Readonly<Record<string, string>> = {
  // What a cold process has loaded (a loader hook stays registered for the process's life).
  'test/tracing/index.test.ts': 'the OpenTelemetry SDK is not loaded until tracing is on',
  'test/toolcalls/linear-regexp.test.ts': 're2js is not loaded until a pattern needs it',
  'test/inspector/diff.test.ts': 'jsdiff is not loaded until the first diff',
  'test/emulators/openapi.test.ts': 'the spec is parsed and its validators compiled from a cold start',
  // Root-level hooks or process-wide settings that would reach the next files' tests.
  'test/providers/gemini/adapter.test.ts': 'a root-level beforeEach',
  'test/providers/gemini/signatures.test.ts': 'a root-level beforeEach',
  'test/tracing/spans-abort.test.ts': 'sets OTEL_BSP_SCHEDULE_DELAY for the process',
  'test/e2e/upstream-faults.test.ts': 'a process-wide unhandledRejection listener; heap growth',
  // Heap counts: no other file's leftovers (timers, sockets, caches) may allocate meanwhile.
  'test/ledger/ring.test.ts': 'counts arrayBuffers',
  'test/client-abort.test.ts': 'counts heap; replaces the uncaughtException listeners',
  'test/ledger/memory-promotion.test.ts': 'counts promoted bytes',
  'test/http/sse.test.ts': 'counts promoted bytes',
  'test/pipeline/record.test.ts': 'counts promoted bytes',
  'test/pipeline/upstream-caller.test.ts': 'counts promoted bytes',
  'test/pipeline/upstream-step.test.ts': 'counts promoted bytes',
  'test/providers/chunk-template.test.ts': 'counts promoted bytes',
  'test/providers/sse-reader.test.ts': 'counts promoted bytes',
  'test/toolcalls/formats/shared-promotion.test.ts': 'counts promoted bytes',
  'test/toolcalls/normalize-stream.test.ts': 'counts promoted bytes',
  'test/toolcalls/schema-validators.test.ts': 'compares heap sizes',
};

export interface PlannedFile {
  /** Relative to the repository root, with forward slashes (test/a/b.test.ts). */
  path: string;
  ownProcess: boolean;
  /** Seconds the file took in the last run on this checkout, when known. */
  seconds?: number;
}

const TIMINGS = join(ROOT, '.cache', 'test-timings.json');

export function readTimings(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(TIMINGS, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export const timingsPath = TIMINGS;

/**
 * Every test/**\/*.test.ts (TOOLGATE_TEST_FILES=<regex> narrows them), longest first: by the last
 * run's timings when there are some, else by size, so that the two lanes end together.
 */
export function testPlan(filter = process.env.TOOLGATE_TEST_FILES): PlannedFile[] {
  const pattern = filter ? new RegExp(filter) : undefined;
  const timings = readTimings();
  const files = (readdirSync(join(ROOT, 'test'), { recursive: true }) as string[])
    .map((name) => `test/${name.split('\\').join('/')}`)
    .filter((path) => path.endsWith('.test.ts') && (!pattern || pattern.test(path)))
    .map((path) => {
      return { path, ownProcess: path in OWN_PROCESS, seconds: timings[path], size: statSync(join(ROOT, path)).size };
    });
  const weight = (file: (typeof files)[number]): number => file.seconds ?? file.size / 2_000;
  return files
    .sort((a, b) => weight(b) - weight(a) || a.path.localeCompare(b.path))
    .map(({ path, ownProcess, seconds }) => ({ path, ownProcess, ...(seconds === undefined ? {} : { seconds }) }));
}
