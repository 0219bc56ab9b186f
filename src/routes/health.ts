import type { FastifyInstance } from 'fastify';
import type { ToolSupportMemory } from '../pipeline/tool-support.js';
import type { Readiness } from '../state/index.js';


/** How the state backend looks now, for both probes. */
function stateStatus(readiness: Readiness): { backend: string; status: 'ok' | 'unavailable' } {
  if (!readiness.state) return { backend: 'memory', status: 'ok' };
  return { backend: readiness.state.backend, status: readiness.state.connected() ? 'ok' : 'unavailable' };
}

export function registerHealth(app: FastifyInstance, readiness: Readiness, toolSupport: ToolSupportMemory): void {
  // Liveness: the process answers. How many models it serves in prompt mode after their upstream
  // refused tools, and whether its state backend answers (a Redis outage is not a reason to restart).
  app.get('/healthz', { config: { endpoint: 'health' } }, async () => ({ status: 'ok', promptModeModels: toolSupport.size(), state: stateStatus(readiness) }));
  // Readiness: also false while the shared state backend is unreachable (state.requiredForReadiness).
  app.get('/readyz', { config: { endpoint: 'health' } }, async (_request, reply) => {
    const state = stateStatus(readiness);
    if (!readiness.ready) return reply.code(503).send({ status: 'not_ready', state });
    if (state.status !== 'ok' && readiness.state?.requiredForReadiness !== false) return reply.code(503).send({ status: 'not_ready', reason: 'state backend unreachable', state });
    return { status: 'ready', state };
  });
}
