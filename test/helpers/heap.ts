import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// For heap-counted tests (never timed).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

/** The heap still in use after `rounds` full GCs, each after a turn of the event loop so that what was released by pending callbacks is collected too. */
export async function settledHeap(rounds = 3): Promise<number> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

const oldSpaceUsed = (): number => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;

/**
 * Bytes the old space grew by while `step` ran `batches` × `perBatch` times, a scavenge after each
 * batch: what the steps left that scavenges promoted instead of collecting. Full GCs first, so
 * whatever `step` keeps for good (a module-level structure) is in the old generation already, as it
 * is in a gateway that has run a while.
 */
export async function promotedBytes(step: (i: number) => unknown, batches: number, perBatch = 10): Promise<number> {
  gc();
  gc();
  let grown = 0;
  let last = oldSpaceUsed();
  for (let batch = 0; batch < batches; batch++) {
    for (let i = 0; i < perBatch; i++) await step(batch * perBatch + i);
    gc({ type: 'minor' });
    const now = oldSpaceUsed();
    if (now > last) grown += now - last;
    last = now;
  }
  return grown;
}
