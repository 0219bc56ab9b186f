/* global process */
// Preloaded into a measured child (`node --import ./bench/heap-hook.mjs …`) by bench/stream-heap.ts,
// and loaded by bench/old-gen-probe.mjs:
// answers {type:'snapshot', path} over IPC by writing a V8 heap snapshot there (a full GC first, as
// every snapshot does) and replying {type:'snapshot-written', path, heapUsed}.
import { writeHeapSnapshot } from 'node:v8';

process.on('message', (message) => {
  if (!message || typeof message !== 'object' || message.type !== 'snapshot') return;
  const path = writeHeapSnapshot(message.path);
  process.send?.({ type: 'snapshot-written', path, heapUsed: process.memoryUsage().heapUsed });
});
