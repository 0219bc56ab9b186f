import { modelOutputSuite } from './model-cases.js';
import { MODEL_OUTPUT_FAMILIES, partOf } from './payloads.js';

// Issue 14 §1/§2: the same answers streamed in 64-character deltas (the cost used to land in the final flush).
// The families are split over three files (-1, -2, -3), as for the JSON answers.
await modelOutputSuite(partOf(MODEL_OUTPUT_FAMILIES, 0, 3), true);
