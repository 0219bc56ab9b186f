import type { FastifyInstance, FastifyRequest } from 'fastify';
import { gatewayKeyOf } from './guard.js';
import { errors } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import type { ResolvedModel } from '../routing/router.js';

// OpenAI list shape (Anthropic's fields too for Anthropic clients). Lists the configured friendly names the caller's gateway key may use.
// GET /v1/models/<id> answers for what the gateway can vouch for: a configured name, the
// `<provider>/<id>` a configured name resolves to, or an id its provider lists (the simulator's);
// anything else, or a model outside the key's globs, is 404 model_not_found, as OpenAI answers.
// Chat and Responses still accept any `<provider>/<id>`: the upstream decides there.
export function registerModels(app: FastifyInstance, gateway: Gateway): void {
  const created = Math.floor(Date.now() / 1000);
  const entry = (id: string, provider: string): { id: string; object: 'model'; created: number; owned_by: string } => ({ id, object: 'model', created, owned_by: provider });
  const listed = gateway.router.listModels().map((model) => ({ model: entry(model.id, model.provider), resolved: gateway.router.resolve(model.id) }));
  const targets = new Set(listed.map(({ resolved }) => `${resolved.provider.settings.name}/${resolved.upstreamModel}`));
  const allowed = (request: FastifyRequest, resolved: ResolvedModel): boolean => gatewayKeyOf(request)?.allows(resolved) ?? true;

  // Anthropic's clients (Claude Code's model discovery: GET /v1/models?limit=1000 with
  // anthropic-version, the key as x-api-key or Bearer) read Anthropic's model list: each entry also
  // gets `type`, `display_name` and `created_at`, the list `has_more`, `first_id` and `last_id`.
  const anthropic = (request: FastifyRequest): boolean => request.headers['anthropic-version'] !== undefined;
  const createdAt = new Date(created * 1000).toISOString();
  const shown = (request: FastifyRequest, model: ReturnType<typeof entry>) => (anthropic(request) ? { ...model, type: 'model', display_name: model.id, created_at: createdAt } : model);
  app.get('/v1/models', { config: { endpoint: 'models', apiKeyHeader: true } }, async (request) => {
    const data = listed.filter(({ resolved }) => allowed(request, resolved)).map(({ model }) => shown(request, model));
    if (!anthropic(request)) return { object: 'list', data };
    return { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  });
  app.get<{ Params: { '*': string } }>('/v1/models/*', { config: { endpoint: 'models', apiKeyHeader: true } }, async (request) => {
    const id = request.params['*'];
    const configured = listed.find(({ model }) => model.id === id);
    const resolved = configured?.resolved ?? vouchedFor(gateway, id, targets);
    if (!resolved || !allowed(request, resolved)) throw errors.modelNotFound(id);
    return shown(request, configured?.model ?? entry(id, resolved.provider.settings.name));
  });
}

/** A `<provider>/<id>` the gateway knows to exist: a configured model's target, or listed by its provider. */
function vouchedFor(gateway: Gateway, id: string, targets: ReadonlySet<string>): ResolvedModel | undefined {
  let resolved: ResolvedModel;
  try {
    resolved = gateway.router.resolve(id);
  } catch {
    return undefined;
  }
  return targets.has(id) || resolved.provider.models?.includes(resolved.upstreamModel) === true ? resolved : undefined;
}
