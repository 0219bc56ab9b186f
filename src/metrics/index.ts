// Public surface of src/metrics: import from here.
export { createMetrics } from './metrics.js';
export { taskKeyFor, TaskTracker, type TaskKeyInput, type TaskTrackerOptions } from './tasks.js';
export {
  costUsd,
  createPriceLookup,
  DEFAULT_PRICES,
  DEFAULT_PRICES_AS_OF,
  priceFor,
  type Price,
  type PriceLookup,
  type PriceTable,
} from './pricing.js';
export * from './types.js';
export { outcomeOfError } from './outcome.js';
