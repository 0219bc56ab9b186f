/* global process, setInterval, Buffer */
// Preloaded into a measured child (`node --import bench/tail-probe.mjs …`) by bench/tail.ts: records
// the process's GC pauses (PerformanceObserver 'gc', wall-clock start and duration) and its event
// loop stalls (a 1 ms sampler that logs any turn that came ≥ 2 ms late), and answers
// {type:'probe'} over IPC with what it recorded since the last ask. Plain JavaScript: no loader.
import { openSync, readSync } from 'node:fs';
import { PerformanceObserver, constants, monitorEventLoopDelay, performance } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-cb',
};
let gcs = [];
let stalls = [];
const origin = performance.timeOrigin;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcs.push({ at: origin + entry.startTime, ms: entry.duration, kind: KINDS[entry.detail?.kind ?? entry.kind] ?? 'other' });
  }
}).observe({ entryTypes: ['gc'] });

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
// Each stall also says how much of it the main thread ran on a core and how much it waited in the
// run queue for one (/proc/thread-self/schedstat, ns): own work vs a busy machine.
if (process.env.TAIL_PROBE_STALLS === '1') {
  const fd = openSync('/proc/thread-self/schedstat', 'r');
  const buffer = Buffer.alloc(128);
  const sched = () => {
    const text = buffer.toString('latin1', 0, readSync(fd, buffer, 0, 128, 0));
    const [run, wait] = text.split(' ');
    return [Number(run) / 1e6, Number(wait) / 1e6];
  };
  let last = performance.now();
  let [lastRun, lastWait] = sched();
  setInterval(() => {
    const now = performance.now();
    const [run, wait] = sched();
    if (now - last >= 3) stalls.push({ at: origin + last, ms: now - last - 1, cpu: run - lastRun, queued: wait - lastWait });
    last = now;
    lastRun = run;
    lastWait = wait;
  }, 1).unref();
}

process.on('message', (message) => {
  if (!message || typeof message !== 'object' || message.type !== 'probe') return;
  const delay = { p50: histogram.percentile(50) / 1e6, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
  process.send?.({ type: 'probe', gcs, stalls, delay, heap: process.memoryUsage() });
  gcs = [];
  stalls = [];
  histogram.reset();
});
