import { modelOutputSuite } from './model-cases.js';
import { MODEL_OUTPUT_FAMILIES, halfOf } from './payloads.js';

// Issue 14 §1/§2: the same answers streamed in 64-character deltas (the cost used to land in the final flush).
// The families are split over two files (-1, -2), as for the JSON answers.
await modelOutputSuite(halfOf(MODEL_OUTPUT_FAMILIES, 0), true);
