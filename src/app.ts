import type { ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { registerBodyValidation } from './routes/validated-body.js';
import { createAuth } from './auth/index.js';
import { registerGuards } from './routes/guard.js';
import type { LoadedConfig } from './config/load.js';
import { errors, replyHeaders } from './errors.js';
import type { Gateway } from './pipeline/gateway.js';
import { toGatewayError } from './http/errors.js';
import { drainBody } from './http/drain-body.js';
import { parseJsonBody } from './http/json-body.js';
import { newRequestId } from './http/request-id.js';
import { lazyChildLogger } from './http/request-logger.js';
import { serverTimeouts } from './http/server-timeouts.js';
import type { CallLedger } from './ledger/types.js';
import { createMetrics, createPriceLookup, type PriceTable } from './metrics/index.js';
import { NameCaches } from './pipeline/name-caches.js';
import { workBudgetsFor } from './state/work-budgets.js';
import { ToolSupportMemory } from './pipeline/tool-support.js';
import { ContractCapabilities } from './contract/capabilities.js';
import { ReasoningSupportMemory } from './pipeline/reasoning-support.js';
import { createProviders } from './providers/registry.js';
import { Resilience } from './resilience/index.js';
import { ModelRouter } from './routing/router.js';
import { registerChatCompletions } from './routes/chat-completions.js';
import { registerHealth } from './routes/health.js';
import { registerLint } from './routes/lint.js';
import { registerMetrics } from './routes/metrics.js';
import { registerModels } from './routes/models.js';
import { registerResponses } from './routes/responses.js';
import { registerResponsesSocket, registerWebSocketSupport } from './routes/responses-socket.js';
import { registerMessages } from './routes/messages.js';
import type { ResponseStore } from './state/response-store.js';
import { endpointOf, isPipelineRoute, keepJournal, peekRequestInfo } from './routes/request-context.js';
import { Inspector } from './inspector/index.js';
import { registerInspectorApi } from './routes/inspector.js';
import { registerInspectorPage } from './routes/inspector-page.js';
import { createState, stateReadiness, type Readiness } from './state/index.js';
import { startTracing } from './tracing/index.js';
import { registerTracing } from './routes/tracing-plugin.js';

/** What the access-log listener reads of a response: its request and when it started. */
const ACCESS = Symbol('toolgate.access');
type WithAccess = { [ACCESS]?: { request: FastifyRequest; started: number } };

export interface BuildOptions {
  logger: Logger;
  ledger?: CallLedger;
  responseStore?: ResponseStore;
}

export interface BuiltApp {
  app: FastifyInstance;
  gateway: Gateway;
  readiness: Readiness;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export async function buildApp(loaded: LoadedConfig, options: BuildOptions): Promise<BuiltApp> {
  const { config } = loaded;
  const providers = createProviders(config, loaded.keyEnvVars);
  const router = new ModelRouter(config, providers);
  const state = await createState(config, options.logger);
  const metrics = createMetrics({ knownModels: router.configuredModelNames, pricing: createPriceLookup(configuredPrices(loaded)) });
  const gateway: Gateway = {
    loaded,
    router,
    providers,
    ledger: options.ledger ?? state.ledger,
    responseStore: options.responseStore ?? state.responseStore,
    metrics,
    log: options.logger,
    repairOptions: {
      mode: config.repair.mode,
      disabled: new Set(config.repair.disabled),
      missingResultText: config.repair.missingResultText,
      corruptedContent: config.repair.corruptedContent,
      loopThreshold: config.repair.loopThreshold,
      loopNote: config.repair.loopNote,
    },
    upstream: {
      names: new NameCaches(config.toolAliases),
      toolSupport: new ToolSupportMemory(config.promptModeDowngrade, metrics.registry),
      reasoningSupport: new ReasoningSupportMemory(metrics.registry),
      contractCapabilities: new ContractCapabilities(config.promptModeDowngrade),
    },
    forwardHeaderNames: new Set(config.server.forwardHeaders.map((name) => name.toLowerCase())),
    auth: createAuth(loaded, state.counters, metrics, options.logger as FastifyBaseLogger),
    resilience: new Resilience(config, options.logger),
    // A Map per configured key (and the anonymous scope): bounded by config (state/work-budgets.ts).
    workBudgets: workBudgetsFor(config.auth.keys.map((key) => key.name)),
  };

  const inspector = config.inspector.enabled ? new Inspector(config.inspector, gateway.auth.redact, options.logger as FastifyBaseLogger) : undefined;
  // Off (the default): the OpenTelemetry SDK is not even loaded (src/tracing/index.ts).
  const tracing = await startTracing(config.tracing, options.logger, gateway.auth.redact);

  // Store sizes from the stores' own accounting, read at scrape time.
  metrics.watchStore('responses', () => gateway.responseStore.stats?.());
  metrics.watchStore('ledger', () => gateway.ledger.stats?.());
  if (inspector) metrics.watchStore('inspector', () => inspector.store.stats);

  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // Our own access log line (onRequest hook below) replaces Fastify's two per-request lines.
    logController: new LogController({ disableRequestLogging: true }),
    // A request's pino child is made only when it writes a line (http/request-logger.ts).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: config.server.bodyLimitBytes,
    // Slow clients (a byte every few seconds) must not hold connections forever.
    ...serverTimeouts(config.server),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
    },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Errors Fastify raises before routing (a malformed URL) get the catalogue's shape too.
    frameworkErrors: (error, _request, reply) => {
      const mapped = toGatewayError(error, config.server.bodyLimitBytes);
      void (reply as FastifyReply).code(mapped.status).send(mapped.toBody());
    },
  });

  // Bodies are JSON whatever the content-type says (some clients omit it); parse errors and
  // bodies over limits.maxDepth / maxStringLength → 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8'), config.limits));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  keepJournal(app, inspector !== undefined);
  if (tracing) registerTracing(app, tracing); // first hook: a SERVER span even for requests the guards refuse

  // One log line per request, written when the response is done (JSON or SSE, even hijacked). One
  // listener function for every response (what it needs rides on the response under a symbol), not
  // a closure and a once-wrapper per request.
  function onResponseClose(this: ServerResponse & WithAccess): void {
    const access = this[ACCESS];
    if (access === undefined) return;
    this[ACCESS] = undefined;
    const { request, started } = access;
    const info = peekRequestInfo(request);
    const latencyMs = Math.round((performance.now() - started) * 10) / 10;
    const status = this.statusCode;
    const aborted = !this.writableFinished;
    gateway.metrics.observeRequest({
      endpoint: info?.endpoint ?? endpointOf(request),
      status,
      durationSeconds: latencyMs / 1000,
      upstreamSeconds: info?.llmCalls ? info.upstreamSeconds : undefined,
    });
    if (info && inspector && isPipelineRoute(request)) {
      inspector.record(info, { id: request.id, method: request.method, path: request.url.split('?')[0], status, aborted, latencyMs });
    }
    if (!options.logger.isLevelEnabled('info')) return;
    // request.log already binds reqId: written once.
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status,
        latencyMs,
        ...(aborted ? { clientAborted: true } : {}),
        ...info?.logFields(),
      },
      'request',
    );
  }

  // Callback-style hooks (here and in routes/guard.ts): an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    // With the reply's own headers (one object for Node to write); SSE replies write their head
    // themselves and add it there (http/sse.ts). A header set on the raw response made Node merge
    // every reply's headers into it at write time.
    reply.header('x-request-id', request.id);
    (reply.raw as ServerResponse & WithAccess)[ACCESS] = { request, started: performance.now() };
    reply.raw.on('close', onResponseClose);
    done();
  });

  app.setErrorHandler(async (error, request, reply) => {
    const mapped = toGatewayError(error, config.server.bodyLimitBytes);
    // Read the rest of an oversized body first: closing mid-upload resets the connection (drain-body.ts).
    if (mapped.status === 413) await drainBody(request.raw, config.server.bodyDrainBytes);
    const info = peekRequestInfo(request);
    info?.failed(mapped.message);
    if (mapped.status >= 500 && mapped.code === 'internal_error') request.log.error({ err: error }, 'unhandled error');
    const body = mapped.toBody();
    body.error.message = gateway.auth.redact(body.error.message); // upstreams may quote the key they got
    // A route in another dialect (the Messages API) renders the same error in its own shape.
    const render = request.routeOptions.config?.errorBody;
    return reply.code(mapped.status).headers(replyHeaders(mapped)).send(render ? render(body, mapped.status, request.id) : body);
  });
  app.setNotFoundHandler((request, reply) => {
    const error = errors.routeNotFound(request.method, request.url.split('?')[0]);
    return reply.code(error.status).send(error.toBody());
  });

  // route → validate (preValidation) → guards and limits (preHandler) → the route's pipeline.
  await registerWebSocketSupport(app, gateway); // before the guards: its hooks close a refused upgrade's socket
  registerBodyValidation(app);
  registerGuards(app, gateway);

  const readiness: Readiness = { ready: false, ...stateReadiness(state, config.state) };
  registerHealth(app, readiness, gateway.upstream.toolSupport);
  registerModels(app, gateway);
  registerChatCompletions(app, gateway);
  registerResponses(app, gateway);
  registerResponsesSocket(app, gateway);
  registerMessages(app, gateway);
  registerLint(app, gateway);
  registerMetrics(app, gateway);
  if (inspector) {
    registerInspectorApi(app, gateway, inspector);
    registerInspectorPage(app, gateway, inspector);
  }

  app.addHook('onClose', async () => {
    readiness.ready = false;
    await Promise.allSettled([...providers.values()].map((provider) => provider.close?.()));
    await gateway.ledger.close?.();
    await gateway.responseStore.close?.();
    gateway.auth.close();
    await state.close();
    gateway.metrics.close();
    await tracing?.shutdown(); // exports the spans still buffered
  });
  await app.ready();
  const downgrade = config.promptModeDowngrade;
  options.logger.info(
    { promptModeDowngrade: downgrade },
    downgrade.enabled
      ? `models whose upstream says they have no tool support are served in prompt mode for ${downgrade.ttlMs} ms (at most ${downgrade.maxModels} models; gauge toolgate_prompt_mode_models)`
      : 'prompt-mode downgrade is off: a model that refuses tools is retried in prompt mode per request only',
  );
  readiness.ready = true;
  return { app, gateway, readiness };
}

function configuredPrices(loaded: LoadedConfig): PriceTable {
  const table: Record<string, { inputPerMTok: number; outputPerMTok: number; cachedInputPerMTok?: number }> = {};
  for (const model of Object.values(loaded.config.models)) {
    if (model.pricing) table[`${model.provider}/${model.model}`] = model.pricing;
  }
  return table;
}

