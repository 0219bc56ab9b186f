// Minimal types for the parts of autocannon 9 the bench uses (the package ships none).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    method?: string;
    body?: string | Buffer;
    headers?: Record<string, string>;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
    workers?: number;
    overallRate?: number;
  }

  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    max: number;
    total: number;
  }

  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    requests: Histogram;
    latency: Histogram;
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
