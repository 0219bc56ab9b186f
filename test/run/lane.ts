import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { ROOT, testPlan } from './plan.js';

// One lane of the suite (test/run/suite.ts starts one more than cores). Lanes take files from the shared
// plan in order, each claiming a file by creating its directory in the queue folder (mkdir is atomic:
// exactly one lane gets it). A claimed file runs in this process: imported, its tests run to the end,
// then its root-level teardowns. A file marked "own process" is spawned as tap would spawn it.

/** A file still running after this long fails the lane (a hang, not a slow test). */
const FILE_LIMIT_MS = 300_000;

const queue = process.env.TOOLGATE_TEST_QUEUE;
if (!queue) throw new Error('test/run/lane.ts runs under test/run/suite.ts (TOOLGATE_TEST_QUEUE unset)');

const claim = (index: number): boolean => {
  try {
    mkdirSync(join(queue, String(index)));
    return true;
  } catch {
    return false;
  }
};

t.setTimeout(3_600_000); // the suite's limit for a lane (test/run/suite.ts)

// The environment as the lane started: a file that sets variables (OTEL_*, CI…) leaves them to no
// later file, and a spawned file starts with it too.
const startEnv = { ...process.env };
const restoreEnv = (): void => {
  for (const name of Object.keys(process.env)) if (!(name in startEnv)) delete process.env[name];
  Object.assign(process.env, startEnv);
};

// Root-level teardowns belong to the file that added them: run when its tests are done, not at the
// end of the lane (servers closed, ports and memory given back before the next file).
type Teardown = () => unknown;
const teardowns: Teardown[] = [];
const root = t as unknown as { teardown: (fn: Teardown) => void; test: (...args: unknown[]) => unknown };
root.teardown = (fn) => void teardowns.push(fn);

// A file's root-level t.setTimeout(ms) is that file's limit here (test/cli/pack.test.ts asks for
// 300 s). Passed on to tap it would be the lane's: tap tells the suite's process, which restarts its
// timer for the whole lane from that moment, and a lane still running ms later was killed mid-file.
/** The file running now. */
let current = '';
let watchdog: NodeJS.Timeout | undefined;
const armWatchdog = (limitMs: number): void => {
  clearTimeout(watchdog);
  const path = current;
  watchdog = setTimeout(() => {
    t.fail(`${path} still running after ${limitMs / 1000} s`);
    process.exit(1);
  }, limitMs);
};
(root as unknown as { setTimeout: (ms: number) => void }).setTimeout = armWatchdog;

// Each file's tests are named after it, so a failure says where it comes from.
const rootTest = root.test.bind(t);
root.test = (...args: unknown[]) => rootTest(...(typeof args[0] === 'string' ? [`${current} › ${args[0]}`, ...args.slice(1)] : [current, ...args]));

const untilIdle = async (): Promise<void> => {
  while (!t.idle) await new Promise((resolve) => t.once('idle', resolve));
};

const timings: Record<string, number> = {};
const plan = testPlan();
for (const [index, file] of plan.entries()) {
  if (!claim(index)) continue;
  const started = Date.now();
  current = file.path;
  if (file.ownProcess) {
    await t.spawn(process.execPath, [...process.execArgv, file.path], { cwd: ROOT, env: { ...startEnv, TOOLGATE_TEST_QUEUE: '' }, timeout: FILE_LIMIT_MS }, file.path);
  } else {
    armWatchdog(FILE_LIMIT_MS);
    try {
      await import(pathToFileURL(join(ROOT, file.path)).href);
    } catch (error) {
      t.fail(`${file.path} failed to load`, { error });
    }
    await untilIdle();
    for (const teardown of teardowns.splice(0)) await teardown();
    clearTimeout(watchdog);
    restoreEnv();
  }
  timings[file.path] = (Date.now() - started) / 1000;
}
writeFileSync(join(queue, `timings-${process.pid}.json`), JSON.stringify(timings));
