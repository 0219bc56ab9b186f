// Growth checks that time work (linear vs quadratic) where the work cannot be counted. Time here is
// this process's CPU time, never wall time, and a pair of sizes is measured again while its ratio is
// over the limit: load, a GC pause or a JIT tier-up only ever add time, so a linear cost comes under
// the limit within a few pairs, while a quadratic one stays over it at any number of pairs.

// The main thread's CPU where Node has it (threadCpuUsage, Node ≥ 23.9): process.cpuUsage also counts
// V8's background GC threads, whose concurrent marking (left over from earlier tests) can land in one run.
const threadCpu = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);

/** CPU time in ms: the main thread's where Node can tell, else this process's (user + system). */
export function cpuMs(): number {
  const { user, system } = threadCpu ? threadCpu() : process.cpuUsage();
  return (user + system) / 1000;
}

/** The fewest CPU ms that `work` took in `runs` runs (a noisy run only ever adds time). */
export function fastestCpuMs(runs: number, work: () => unknown): number {
  let fastest = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = cpuMs();
    work();
    fastest = Math.min(fastest, cpuMs() - started);
  }
  return fastest;
}

export interface GrowthPair {
  small: number;
  large: number;
  ratio: number;
  /** Pairs measured (1 when the first was under the limit). */
  pairs: number;
}

/**
 * The lowest large/small ratio over up to `maxPairs` measured pairs, stopping at the first under
 * `limit`. `floor` keeps timer noise out of a tiny small-size cost.
 */
export function growthRatio(measure: () => { small: number; large: number }, limit: number, options: { maxPairs?: number; floor?: number } = {}): GrowthPair {
  const maxPairs = options.maxPairs ?? 5;
  const floor = options.floor ?? 0.01;
  let best = { small: 0, large: 0, ratio: Infinity };
  let pairs = 0;
  while (pairs < maxPairs && best.ratio >= limit) {
    const { small, large } = measure();
    pairs++;
    const ratio = large / Math.max(small, floor);
    if (ratio < best.ratio) best = { small, large, ratio };
  }
  return { ...best, pairs };
}
