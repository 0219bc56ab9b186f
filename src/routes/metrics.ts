import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../pipeline/gateway.js';

export function registerMetrics(app: FastifyInstance, gateway: Gateway): void {
  app.get('/metrics', { config: { endpoint: 'metrics' } }, async (_request, reply) => {
    const body = await gateway.metrics.render();
    return reply.type(gateway.metrics.contentType).send(body);
  });
}
