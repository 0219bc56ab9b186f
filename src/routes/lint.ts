import type { FastifyInstance } from 'fastify';
import { gatewayKeyOf } from './guard.js';
import { parseChatRequest } from '../api/chat-schema.js';
import type { Gateway } from '../pipeline/gateway.js';
import { repairStep } from '../pipeline/repair-step.js';
import { strictVerdictOf } from '../repair/index.js';

// POST /v1/toolgate/lint: what toolgate would repair in a chat completions body, and the repaired
// request, without calling any upstream. For people debugging their agents.
export function registerLint(app: FastifyInstance, gateway: Gateway): void {
  const repairMode = { ...gateway.repairOptions, mode: 'repair' as const };
  app.post('/v1/toolgate/lint', async (request) => {
    const chat = parseChatRequest(request.body);
    // One run: the repair passes (JSON repair above all) are the cost; strict mode's verdict comes from it.
    // The caller's own ledger scope: lint must not restore (and show) another key's calls.
    const repaired = await repairStep(chat, gateway, request.log, repairMode, gatewayKeyOf(request)?.name);
    return {
      object: 'toolgate.lint',
      valid: repaired.findings.length === 0,
      findings: repaired.findings,
      summary: repaired.header ?? null,
      strict_mode_error: strictVerdictOf(chat, repaired),
      repaired_request: repaired.request,
    };
  });
}
