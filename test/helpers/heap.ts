import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// For heap-counted tests (never timed): the heap still in use after `rounds` full GCs, each after a
// turn of the event loop so that what was released by pending callbacks is collected too.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export async function settledHeap(rounds = 3): Promise<number> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}
