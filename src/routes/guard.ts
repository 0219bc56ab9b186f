import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onSendHookHandler } from 'fastify';
import { validatedBodyOf } from './validated-body.js';
import type { LimitsConfig } from '../config/schema.js';
import { errors } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import type { ResolvedModel } from '../routing/router.js';
import { attachTarget, endpointOf, isPipelineRoute, peekRequestInfo, requestInfoOf } from './request-context.js';
import type { GatewayKey } from '../auth/keys.js';

// The request guards, in Fastify hook order:
//   onRequest  — gateway key on every /v1 route (401), metrics key on /metrics;
//   preHandler — body counts and model name (400), model allowed for the key (403), rate limits and budget (429);
//                on chat and Responses creation it reads the body preValidation already validated
//                (routes/validated-body.ts), elsewhere only fields whose type it checks itself;
//   onSend     — /metrics scrubbed of configured secrets (a hook of that route only).
// The key name goes on the request's RequestInfo so the pipeline can charge costs to it and
// skip fallbacks the key may not use.

const KEY = Symbol('toolgate.gatewayKey');
type WithKey = FastifyRequest & { [KEY]?: GatewayKey };

export function registerGuards(app: FastifyInstance, gateway: Gateway): void {
  const { keys, limiter } = gateway.auth;
  const limits = gateway.loaded.config.limits;

  // No gateway keys and no metrics key (fixed at startup): the hook would let everything through.
  if (keys.enabled || keys.metricsProtected) app.addHook('onRequest', authenticate);
  function authenticate(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (endpointOf(request) === 'metrics') {
      done(keys.metricsAllowed(request.headers.authorization) ? undefined : errors.invalidApiKey());
      return;
    }
    if (!keys.enabled || !(isV1(request.routeOptions.url) || isV1(request.url.split('?')[0]))) {
      done();
      return;
    }
    // Anthropic's clients send the key as x-api-key (their routes only); Authorization: Bearer wins when both come.
    const apiKey = request.routeOptions.config?.apiKeyHeader === true ? bearerOf(request.headers['x-api-key']) : undefined;
    const key = keys.authenticate(request.headers.authorization ?? apiKey);
    if (!key) {
      done(errors.invalidApiKey());
      return;
    }
    (request as WithKey)[KEY] = key;
    if (key.tokensPerMinute) {
      // Tokens are known when the answer is done (JSON or the end of a stream).
      reply.raw.once('close', () => {
        const usage = peekRequestInfo(request)?.usage;
        const tokens = usage ? usage.total_tokens || (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0) : 0;
        void limiter.addTokens(key, tokens);
      });
    }
    done();
  }

  // Labels can carry client text (unconfigured model names): a secret a client typed there is
  // still a secret for whoever scrapes /metrics. A hook on the metrics route only: an app-wide
  // onSend hook costs every request a hook run.
  const scrub: onSendHookHandler = (_request, _reply, payload, done) => {
    done(null, typeof payload === 'string' ? gateway.auth.redact(payload) : payload);
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.endpoint !== 'metrics') return;
    route.onSend = route.onSend === undefined ? scrub : [...(Array.isArray(route.onSend) ? route.onSend : [route.onSend]), scrub];
  });

  app.addHook('preHandler', (request, _reply, done) => {
    let admitted: Promise<void> | undefined;
    try {
      admitted = admit(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    // Only a gateway key with limits waits for the counter store.
    if (admitted) admitted.then(() => done(), done);
    else done();
  });

  /** The preHandler's checks; a promise only when the limiter must be asked. */
  function admit(request: FastifyRequest): Promise<void> | undefined {
    const validated = validatedBodyOf(request);
    const body: unknown = validated ? validated.request : request.body;
    checkCounts(body, limits);
    checkModelName(body);
    // The model is resolved here, once: the pipeline reads it from the request (routes/request-context.ts).
    const model = validated ? resolvedModelOf(validated.request.model, gateway) : undefined;
    if (model) attachTarget(request, model);
    const key = (request as WithKey)[KEY];
    if (!key) return undefined;
    if (model && !key.allows(model)) throw errors.modelNotAllowed(model.requested, key.name);
    return limiter.admit(key).then(() => {
      if (isPipelineRoute(request)) requestInfoOf(request, endpointOf(request)).authenticated(key.name);
    });
  }
}

/** The gateway key that authenticated this request (undefined when no keys are configured). */
export function gatewayKeyOf(request: FastifyRequest): GatewayKey | undefined {
  return (request as WithKey)[KEY];
}

/** An x-api-key header as the Authorization value it stands for. */
function bearerOf(apiKey: string | string[] | undefined): string | undefined {
  return typeof apiKey === 'string' && apiKey !== '' ? `Bearer ${apiKey}` : undefined;
}

function isV1(path: string | undefined): boolean {
  return path !== undefined && (path === '/v1' || path.startsWith('/v1/'));
}

/** Array bounds of chat (`messages`, `tools`, `functions`) and Responses (`input`, `tools`) bodies. */
function checkCounts(body: unknown, limits: LimitsConfig): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const record = body as Record<string, unknown>;
  checkCount(record, 'messages', limits.maxMessages);
  checkCount(record, 'input', limits.maxMessages);
  checkCount(record, 'tools', limits.maxTools);
  checkCount(record, 'functions', limits.maxTools);
}

function checkCount(record: Record<string, unknown>, param: string, max: number): void {
  const value = record[param];
  if (Array.isArray(value) && value.length > max) throw errors.tooMany(param, max, value.length);
}

// Model ids travel in bodies, but some adapters put them in URL paths (Gemini: models/{id}):
// no path segments like `..`, no query, fragment, escapes or control characters, ever.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const UNSAFE_MODEL = /[\u0000-\u001f\u007f?#%\\]|(^|\/)\.{1,2}(\/|$)/;

/** Longest model name a request may use: real ids are under 100 characters; globs and routing see no more. */
export const MAX_MODEL_NAME_LENGTH = 256;

function checkModelName(body: unknown): void {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  if (typeof model === 'string' && model.length > MAX_MODEL_NAME_LENGTH) throw errors.modelNameTooLong(model.length, MAX_MODEL_NAME_LENGTH);
  if (typeof model === 'string' && UNSAFE_MODEL.test(model)) {
    throw errors.invalidRequest(`Invalid 'model': '${model.slice(0, 200)}' contains characters or path segments toolgate never sends upstream.`, 'model', 'invalid_value');
  }
}

/** The model a validated body names, when it resolves (an unknown model is left to the route's 404). */
function resolvedModelOf(model: string, gateway: Gateway): ResolvedModel | undefined {
  if (model === '') return undefined;
  try {
    return gateway.router.resolve(model);
  } catch {
    return undefined;
  }
}
