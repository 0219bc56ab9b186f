import type { FastifyInstance } from 'fastify';
import { errors } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { viewerOf } from './inspector-access.js';
import type { Inspector } from '../inspector/index.js';
import { OUTCOMES, type Outcome } from '../inspector/record.js';
import type { RecordFilter } from '../inspector/store.js';

// The inspector's JSON API (docs/inspector.md), the page's only data source:
//   GET /v1/toolgate/requests         newest first; filters model, provider, outcome, has-repairs,
//                                     has-fallback, text-calls, since; cursor paging (limit, cursor)
//   GET /v1/toolgate/requests/{id}    one record; {id} is the request's x-request-id
// A caller sees the records of its own gateway key (an admin key: all); src/routes/inspector-access.ts.

const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1_000;
const PARAMS = new Set(['model', 'provider', 'outcome', 'has-repairs', 'has-fallback', 'text-calls', 'since', 'cursor', 'limit']);

export function registerInspectorApi(app: FastifyInstance, gateway: Gateway, inspector: Inspector): void {
  const keysEnabled = gateway.auth.keys.enabled;

  app.get('/v1/toolgate/requests', async (request, reply) => {
    const viewer = viewerOf(request, inspector.config, keysEnabled);
    if ('error' in viewer) throw viewer.error;
    const { filter, limit } = parseQuery(request.query);
    if (viewer.scope !== 'all') filter.scope = viewer.scope;
    const page = inspector.store.list(filter, limit);
    return reply.header('cache-control', 'no-store').send({
      object: 'list',
      data: page.data,
      has_more: page.next !== undefined,
      next_cursor: page.next === undefined ? null : String(page.next),
    });
  });

  app.get<{ Params: { id: string } }>('/v1/toolgate/requests/:id', async (request, reply) => {
    const viewer = viewerOf(request, inspector.config, keysEnabled);
    if ('error' in viewer) throw viewer.error;
    const json = inspector.store.get(request.params.id, viewer.scope === 'all' ? undefined : viewer.scope);
    // Another key's record answers as an id that never existed.
    if (json === undefined) throw errors.requestRecordNotFound(request.params.id);
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(json);
  });
}

/** The query string as a filter; anything unknown, repeated or malformed is a 400 naming the parameter. */
export function parseQuery(query: unknown): { filter: RecordFilter; limit: number } {
  const params = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const filter: RecordFilter = {};
  let limit = DEFAULT_LIMIT;
  for (const [name, raw] of Object.entries(params)) {
    if (!PARAMS.has(name)) throw errors.invalidRequest(`Unknown query parameter '${name.slice(0, 64)}'. Known: ${[...PARAMS].join(', ')}.`, name.slice(0, 64), 'unknown_parameter');
    if (typeof raw !== 'string') throw errors.invalidRequest(`Query parameter '${name}' must be given once.`, name, 'invalid_value');
    if (raw.length > 256) throw errors.invalidRequest(`Query parameter '${name}' is longer than 256 characters.`, name, 'invalid_value');
    switch (name) {
      case 'model':
      case 'provider':
        filter[name] = raw;
        break;
      case 'outcome':
        if (!OUTCOMES.includes(raw as Outcome)) throw errors.invalidRequest(`Invalid 'outcome': '${raw}'. Supported values are: ${OUTCOMES.join(', ')}.`, name, 'invalid_value');
        filter.outcome = raw as Outcome;
        break;
      case 'has-repairs':
        filter.hasRepairs = flag(name, raw);
        break;
      case 'has-fallback':
        filter.hasFallback = flag(name, raw);
        break;
      case 'text-calls':
        filter.textCalls = flag(name, raw);
        break;
      case 'since':
        filter.since = timeOf(raw);
        break;
      case 'cursor':
        if (!/^[1-9]\d{0,15}$/.test(raw)) throw errors.invalidRequest(`Invalid 'cursor': use the next_cursor of a previous page.`, name, 'invalid_value');
        filter.before = Number(raw);
        break;
      case 'limit':
        if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_LIMIT) throw errors.invalidRequest(`Invalid 'limit': an integer from 1 to ${MAX_LIMIT}.`, name, 'invalid_value');
        limit = Number(raw);
        break;
    }
  }
  return { filter, limit };
}

function flag(name: string, raw: string): boolean {
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw errors.invalidRequest(`Invalid '${name}': '${raw}'. Use true or false.`, name, 'invalid_value');
}

/** An ISO 8601 time or epoch milliseconds. */
function timeOf(raw: string): number {
  const value = /^\d{1,15}$/.test(raw) ? Number(raw) : /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(value)) throw errors.invalidRequest(`Invalid 'since': '${raw}'. Use an ISO 8601 time or epoch milliseconds.`, 'since', 'invalid_value');
  return value;
}
