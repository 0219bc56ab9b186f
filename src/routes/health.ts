import type { FastifyInstance } from 'fastify';

export interface Readiness {
  ready: boolean;
}

export function registerHealth(app: FastifyInstance, readiness: Readiness): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (!readiness.ready) return reply.code(503).send({ status: 'not_ready' });
    return { status: 'ready' };
  });
}
