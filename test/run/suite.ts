import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import { ROOT, readTimings, timingsPath } from './plan.js';

// The whole suite as `npx tap` runs it (package.json "tap.include"): lane processes
// (test/run/lane.ts) that together take every test/**/*.test.ts file from one queue. One file
// alone still runs as before: `npx tap test/a/b.test.ts`.

// One lane more than cores: files spend part of their time waiting (servers, timers, child
// processes), and a third lane on 2 cores fills it (npm test: 259 s → 205 s under c8; 4 lanes: 196 s).
const lanes = Math.max(1, Number(process.env.TOOLGATE_TEST_LANES) || Math.min(availableParallelism() + 1, 8));
const queue = mkdtempSync(join(tmpdir(), 'toolgate-test-queue-'));

// A lane runs half the suite: no limit of its own beyond this hour; a hung file is caught by the
// lane's per-file limit.
const LANE_LIMIT_MS = 3_600_000;
t.setTimeout(LANE_LIMIT_MS);
t.jobs = lanes;
for (let lane = 1; lane <= lanes; lane++) {
  void t.spawn(process.execPath, [...process.execArgv, join(ROOT, 'test/run/lane.ts')], { cwd: ROOT, env: { ...process.env, TOOLGATE_TEST_QUEUE: queue }, timeout: LANE_LIMIT_MS }, `lane ${lane}`);
}

t.teardown(() => {
  // The files' timings order the next run (longest first), so that the lanes end together.
  const timings = readTimings();
  for (const name of readdirSync(queue).filter((entry) => entry.startsWith('timings-'))) {
    Object.assign(timings, JSON.parse(readFileSync(join(queue, name), 'utf8')) as Record<string, number>);
  }
  mkdirSync(dirname(timingsPath), { recursive: true });
  writeFileSync(timingsPath, `${JSON.stringify(timings, null, 1)}\n`);
  rmSync(queue, { recursive: true, force: true });
});
