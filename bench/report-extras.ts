import { renderAdversarial } from './adversarial.js';
import type { BenchResults } from './types.js';

// The section of bench/results/latest.md that does not depend on the Node version: the adversarial inputs.

export function renderExtras(results: BenchResults): string[] {
  return results.adversarial ? [renderAdversarial(results.adversarial).replace(/^### /, '## ')] : [];
}
