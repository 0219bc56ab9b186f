import { z } from 'zod';

// The gateway's config file, validated at startup. Defaults live here, once.

const providerType = z.enum(['openai', 'openai-compatible', 'gemini', 'simulator']);

// Retries on the same provider: connect errors, 429 and 5xx, only before any byte reached the client.
export const retrySchema = z
  .object({
    /** Attempts in all, the first included; 1 = never retry. */
    maxAttempts: z.number().int().min(1).max(10).default(2),
    baseDelayMs: z.number().int().nonnegative().default(250),
    /** Cap on one backoff wait; a 429 asking for longer than this goes to fallbacks instead. */
    maxDelayMs: z.number().int().nonnegative().default(5_000),
  })
  .strict();

// One breaker per provider (per instance): N consecutive failures open it for cooldownMs.
export const circuitBreakerSchema = z
  .object({
    failureThreshold: z.number().int().min(1).default(5),
    cooldownMs: z.number().int().positive().default(30_000),
  })
  .strict();

/** Upstream answers are untrusted: the size caps of one JSON answer and of one stream event (providerSchema). */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_EVENT_BYTES = 32 * 1024 * 1024;
/** All the bytes of one upstream stream: SSE repeats a chunk's JSON frame per token (~100-1,000 bytes). */
export const DEFAULT_MAX_STREAM_BYTES = 128 * 1024 * 1024;

export const providerSchema = z
  .object({
    type: providerType,
    baseUrl: z.string().url().optional(),
    apiKey: z.string().optional(),
    timeoutMs: z.number().int().positive().default(600_000),
    maxConnections: z.number().int().positive().nullable().default(null),
    streamIdleTimeoutMs: z.number().int().positive().default(120_000),
    /** A whole JSON answer (not streamed) larger than this is a 502, read no further: a full-length answer
     *  with big tool-call arguments is a few MB, so 32 MiB is far above any real one and still bounded. */
    maxResponseBytes: z.number().int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
    /** One stream event (or line) still incomplete past this size ends the stream with a 502: an event can
     *  hold a whole answer (Responses' `response.completed`, a tool call's arguments at once), hence as large. */
    maxEventBytes: z.number().int().positive().default(DEFAULT_MAX_EVENT_BYTES),
    /** One stream's body in all: past it the stream ends with an error event (what it carries is also kept for the answer). */
    maxStreamBytes: z.number().int().positive().default(DEFAULT_MAX_STREAM_BYTES),
    headers: z.record(z.string(), z.string()).default({}),
    retry: retrySchema.default(retrySchema.parse({})),
    circuitBreaker: circuitBreakerSchema.default(circuitBreakerSchema.parse({})),
    /** Search answers' text for tool calls (docs/text-calls.md#where-text-is-searched): auto decides by provider type and model. */
    textCalls: z.enum(['auto', 'on', 'off']).default('auto'),
  })
  .strict()
  .superRefine((provider, ctx) => {
    if (provider.type !== 'simulator' && !provider.baseUrl) {
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: `baseUrl is required for type '${provider.type}'` });
    }
  });

export const pricingSchema = z
  .object({
    inputPerMTok: z.number().nonnegative(),
    outputPerMTok: z.number().nonnegative(),
    cachedInputPerMTok: z.number().nonnegative().optional(),
  })
  .strict();

// The request's tool contract (tool_choice, parallel_tool_calls, declared tools, valid arguments;
// docs/contract.md): what happens to an answer that breaks it. `models.<name>.contract` overrides field by field.
const contractFields = {
  enabled: z.boolean(),
  /**
   * reask: ask the same model again (up to maxReasks), then hand on the last answer with a warning;
   * error (strict): the same re-asks, then a 502 (maxReasks 0: at once); pass: hand it on with a warning at once.
   */
  onViolation: z.enum(['reask', 'error', 'pass']),
  /** Re-asks per answer (each is an upstream call of the request). */
  maxReasks: z.number().int().min(0).max(5),
  /** parallel_tool_calls: false answered with several calls: a violation, or (`trim`) keep only the first call. */
  extraCalls: z.enum(['violation', 'trim']),
  /** A re-ask starts only while the request so far, plus the last attempt's time again, fits in this. */
  deadlineMs: z.number().int().positive(),
};
export const contractSchema = z
  .object({
    enabled: contractFields.enabled.default(true),
    onViolation: contractFields.onViolation.default('reask'),
    maxReasks: contractFields.maxReasks.default(1),
    extraCalls: contractFields.extraCalls.default('violation'),
    deadlineMs: contractFields.deadlineMs.default(120_000),
  })
  .strict();
export const modelContractSchema = z.object(contractFields).partial().strict();
export type ContractConfig = z.infer<typeof contractSchema>;

export const modelSchema = z
  .object({
    provider: z.string().min(1),
    model: z.string().min(1),
    toolCalling: z.enum(['native', 'prompt']).default('native'),
    /** Reasoning the model writes in its text (<think>…): left in content, split out to reasoning_content, or dropped. */
    reasoning: z.enum(['content', 'split', 'drop']).default('content'),
    /** Search this model's answers for tool calls written as text; `auto`: the provider's setting. */
    textCalls: z.enum(['auto', 'on', 'off']).default('auto'),
    pricing: pricingSchema.optional(),
    fallbacks: z.array(z.string().min(1)).default([]),
    description: z.string().optional(),
    contract: modelContractSchema.optional(),
  })
  .strict();

export const repairSchema = z
  .object({
    mode: z.enum(['repair', 'strict']).default('repair'),
    disabled: z.array(z.string()).default([]),
    missingResultText: z.string().default('No result was returned for this tool call.'),
    corruptedContent: z.enum(['drop', 'keep']).default('keep'),
    loopThreshold: z.number().int().min(2).default(3),
    loopNote: z.boolean().default(false),
    restoreHistory: z.boolean().default(true),
    textToolCalls: z.boolean().default(true),
  })
  .strict();

export const ledgerSchema = z
  .object({
    ttlSeconds: z.number().int().positive().default(86_400),
    maxEntries: z.number().int().positive().default(100_000),
    /** Byte budget of the in-memory call ledger (its byte ring plus a fixed cost per entry and index key, every gateway key together). */
    maxBytes: z.number().int().positive().default(16 * 1024 * 1024),
    /** A ledger entry larger than this is not stored (memory and Redis); a warning is logged. */
    maxEntryBytes: z.number().int().positive().default(1024 * 1024),
  })
  .strict();

// The Responses store (ttlSeconds and maxEntries come from `ledger`).
export const responsesStoreSchema = z
  .object({
    /** Byte budget of the in-memory Responses store (estimated heap bytes, every gateway key together). */
    maxBytes: z.number().int().positive().default(32 * 1024 * 1024),
    /** A response (with its input) larger than this is not stored (memory and Redis); a warning is logged. */
    maxEntryBytes: z.number().int().positive().default(8 * 1024 * 1024),
  })
  .strict();

export const serverSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65_535).default(8080),
    bodyLimitBytes: z.number().int().positive().default(20 * 1024 * 1024),
    /** After a 413, up to this many more body bytes are read and discarded so the client can read its 413. */
    bodyDrainBytes: z.number().int().nonnegative().default(64 * 1024 * 1024),
    /** Time to receive a whole request (headers and body) before a 408 and a close; 0 = none. */
    requestTimeoutMs: z.number().int().nonnegative().default(60_000),
    /** Time to receive the request headers; at most requestTimeoutMs. */
    headersTimeoutMs: z.number().int().positive().default(15_000),
    /** An idle keep-alive connection is closed after this long. */
    keepAliveTimeoutMs: z.number().int().positive().default(72_000),
    shutdownGraceMs: z.number().int().nonnegative().default(10_000),
    forwardHeaders: z.array(z.string()).default(['openai-organization', 'openai-project', 'x-request-id']),
    /** `: ping` comment on an SSE stream idle this long (keeps proxies from cutting it); 0 = never. */
    ssePingMs: z.number().int().nonnegative().default(15_000),
    /** WebSocket mode on /v1/responses (docs/responses.md). */
    websocket: z
      .object({
        enabled: z.boolean().default(true),
        /** A socket with no response running and no message for this long is closed (1000). */
        idleTimeoutMs: z.number().int().positive().default(300_000),
        /** response.create messages waiting behind the running one; one more is an error event. */
        maxQueued: z.number().int().nonnegative().default(4),
        /** Bytes of store: false responses a socket keeps for previous_response_id. */
        memoryBytes: z.number().int().positive().default(16 * 1024 * 1024),
      })
      .strict()
      .default({ enabled: true, idleTimeoutMs: 300_000, maxQueued: 4, memoryBytes: 16 * 1024 * 1024 }),
  })
  .strict();

// A model whose upstream says it has no tool support is served in prompt mode for a while (per instance).
export const promptModeDowngradeSchema = z
  .object({
    enabled: z.boolean().default(true),
    maxModels: z.number().int().positive().default(256),
    ttlMs: z.number().int().positive().default(3_600_000),
  })
  .strict();

// OpenTelemetry traces (src/tracing/): off unless enabled here or by the standard OTEL_* variables,
// which win over these fields (docs/tracing.md).
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export const tracingSchema = z
  .object({
    enabled: z.boolean().default(false),
    /** OTLP/HTTP base URL (`/v1/traces` is appended) or, with `grpc`, the collector address as is; OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT wins. */
    endpoint: z.string().url().optional(),
    protocol: z.enum(OTLP_PROTOCOLS).default('http/protobuf'),
    serviceName: z.string().min(1).default('toolgate'),
    sampler: z
      .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
      .default('parentbased_always_on'),
    /** Ratio for the traceidratio samplers. */
    samplerRatio: z.number().min(0).max(1).default(1),
    /** Prompts and answers on the CLIENT spans (gen_ai.input.messages / gen_ai.output.messages). */
    captureContent: z.boolean().default(false),
  })
  .strict();
export type TracingConfig = z.infer<typeof tracingSchema>;

// Gateway keys: with any key configured every /v1 request needs `Authorization: Bearer <key>`.
export const gatewayKeySchema = z
  .object({
    key: z.string().min(8, 'a gateway key needs at least 8 characters (is its environment variable set?)'),
    name: z.string().regex(/^[\w.-]{1,64}$/, 'key names are 1-64 letters, digits, _, . and -'),
    /** Globs (`*`, `?`) over the requested model name and its `<provider>/<upstream id>`. */
    models: z.array(z.string().min(1)).default(['*']),
    requestsPerMinute: z.number().int().positive().optional(),
    tokensPerMinute: z.number().int().positive().optional(),
    dailyBudgetUsd: z.number().positive().optional(),
  })
  .strict();

export const authSchema = z
  .object({
    keys: z.array(gatewayKeySchema).default([]),
    /** When set, GET /metrics needs `Authorization: Bearer <metricsKey>`. */
    metricsKey: z.string().optional(),
    /** Without keys, listen beyond loopback anyway (else startup refuses); also TOOLGATE_ALLOW_ANONYMOUS=true. */
    allowAnonymous: z.boolean().default(false),
  })
  .strict()
  .superRefine((auth, ctx) => {
    const names = new Set<string>();
    const keys = new Set<string>();
    auth.keys.forEach((entry, index) => {
      if (names.has(entry.name)) ctx.addIssue({ code: 'custom', path: ['keys', index, 'name'], message: `duplicate key name '${entry.name}'` });
      if (keys.has(entry.key)) ctx.addIssue({ code: 'custom', path: ['keys', index, 'key'], message: 'the same key value is configured twice' });
      names.add(entry.name);
      keys.add(entry.key);
    });
    if (auth.metricsKey !== undefined && auth.metricsKey !== '' && auth.metricsKey.length < 8) {
      ctx.addIssue({ code: 'custom', path: ['metricsKey'], message: 'metricsKey needs at least 8 characters' });
    }
  });

// Client input bounds; anything over them is a 400 naming the field, never a 5xx.
export const limitsSchema = z
  .object({
    maxMessages: z.number().int().positive().default(4_096),
    maxTools: z.number().int().positive().default(512),
    /** Nesting depth of the JSON body (objects + arrays). */
    // At most 1,000: deeper values overflow the stack in structuredClone / recursive walks (500s).
    maxDepth: z.number().int().min(8).max(1_000).default(64),
    /** Longest single string in the body, in UTF-16 units; 0 = only the body size limit applies. */
    maxStringLength: z.number().int().nonnegative().default(0),
  })
  .strict();

// Shared state: the call ledger, the Responses store and the rate-limit / budget counters.
export const stateSchema = z
  .object({
    type: z.enum(['memory', 'redis']).default('memory'),
    url: z.string().optional(),
    keyPrefix: z.string().default('toolgate:'),
    connectTimeoutMs: z.number().int().positive().default(2_000),
    commandTimeoutMs: z.number().int().positive().default(500),
    /** Rate limits and budgets when Redis is down: `open` serves anyway, `closed` answers 503. */
    limitsFailMode: z.enum(['open', 'closed']).default('open'),
    /** /readyz answers 503 while Redis is unreachable; false: ready anyway (requests that need Redis still fail). */
    requiredForReadiness: z.boolean().default(true),
  })
  .strict()
  .superRefine((state, ctx) => {
    if (state.type !== 'redis') return;
    if (!state.url || !/^rediss?:\/\//.test(state.url)) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: "state.type 'redis' needs url: redis://host:port (or rediss://)" });
    }
  });

// The request inspector (/inspector and GET /v1/toolgate/requests): off unless enabled; per instance.
export const inspectorSchema = z
  .object({
    enabled: z.boolean().default(false),
    /** Byte budget of the record ring (bytes of the records' JSON, every gateway key together). */
    maxBytes: z.number().int().positive().default(16 * 1024 * 1024),
    /** A record larger than this drops its diffs and text first, then is cut to its summary. */
    maxRecordBytes: z.number().int().min(4_096).default(256 * 1024),
    /** Store message text and arguments; off: lengths and a short hash only. */
    captureContent: z.boolean().default(false),
    /** Gateway key names that see every key's records (other keys see their own). */
    adminKeys: z.array(z.string()).default([]),
    /** With no gateway keys configured: answer clients beyond loopback too. */
    public: z.boolean().default(false),
  })
  .strict();

export const configSchema = z
  .object({
    server: serverSchema.default(serverSchema.parse({})),
    logging: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
        format: z.enum(['auto', 'json', 'pretty']).default('auto'),
      })
      .strict()
      .default({ level: 'info', format: 'auto' }),
    tracing: tracingSchema.default(tracingSchema.parse({})),
    providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'provider names are lowercase letters, digits, - and _'), providerSchema),
    models: z.record(z.string().min(1), modelSchema).default({}),
    toolAliases: z.record(z.string(), z.string()).default({}),
    promptModeDowngrade: promptModeDowngradeSchema.default(promptModeDowngradeSchema.parse({})),
    repair: repairSchema.default(repairSchema.parse({})),
    ledger: ledgerSchema.default(ledgerSchema.parse({})),
    responses: responsesStoreSchema.default(responsesStoreSchema.parse({})),
    auth: authSchema.default(authSchema.parse({})),
    limits: limitsSchema.default(limitsSchema.parse({})),
    state: stateSchema.default(stateSchema.parse({})),
    inspector: inspectorSchema.default(inspectorSchema.parse({})),
    contract: contractSchema.default(contractSchema.parse({})),
  })
  .strict()
  .superRefine((config, ctx) => {
    for (const [name, model] of Object.entries(config.models)) {
      if (!config.providers[model.provider]) {
        ctx.addIssue({ code: 'custom', path: ['models', name, 'provider'], message: `unknown provider '${model.provider}'` });
      }
      // A fallback is a configured model name or `<configured provider>/<upstream id>`.
      model.fallbacks.forEach((fallback, index) => {
        const slash = fallback.indexOf('/');
        const viaProvider = slash > 0 && slash < fallback.length - 1 && config.providers[fallback.slice(0, slash)] !== undefined;
        if (config.models[fallback] === undefined && !viaProvider) {
          ctx.addIssue({
            code: 'custom',
            path: ['models', name, 'fallbacks', index],
            message: `unknown model '${fallback}': not a configured model, nor <provider>/<model> with a configured provider`,
          });
        }
      });
    }
  });

export type GatewayConfig = z.infer<typeof configSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type RepairConfig = z.infer<typeof repairSchema>;
export type RetryConfig = z.infer<typeof retrySchema>;
export type CircuitBreakerConfig = z.infer<typeof circuitBreakerSchema>;
export type GatewayKeyConfig = z.infer<typeof gatewayKeySchema>;
export type AuthConfig = z.infer<typeof authSchema>;
export type LimitsConfig = z.infer<typeof limitsSchema>;
export type StateConfig = z.infer<typeof stateSchema>;
export type InspectorConfig = z.infer<typeof inspectorSchema>;
