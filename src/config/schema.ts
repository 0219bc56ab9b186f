import { z } from 'zod';

// The gateway's config file, validated at startup. Defaults live here, once.

const providerType = z.enum(['openai', 'openai-compatible', 'gemini', 'simulator']);

export const providerSchema = z
  .object({
    type: providerType,
    baseUrl: z.string().url().optional(),
    apiKey: z.string().optional(),
    timeoutMs: z.number().int().positive().default(600_000),
    streamIdleTimeoutMs: z.number().int().positive().default(120_000),
    headers: z.record(z.string(), z.string()).default({}),
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

export const modelSchema = z
  .object({
    provider: z.string().min(1),
    model: z.string().min(1),
    toolCalling: z.enum(['native', 'prompt']).default('native'),
    pricing: pricingSchema.optional(),
    fallbacks: z.array(z.string().min(1)).default([]),
    description: z.string().optional(),
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
  })
  .strict();

export const serverSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65_535).default(8080),
    bodyLimitBytes: z.number().int().positive().default(20 * 1024 * 1024),
    shutdownGraceMs: z.number().int().nonnegative().default(10_000),
    forwardHeaders: z.array(z.string()).default(['openai-organization', 'openai-project', 'x-request-id']),
  })
  .strict();

export const configSchema = z
  .object({
    server: serverSchema.default(serverSchema.parse({})),
    logging: z.object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') }).strict().default({ level: 'info' }),
    providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'provider names are lowercase letters, digits, - and _'), providerSchema),
    models: z.record(z.string().min(1), modelSchema).default({}),
    toolAliases: z.record(z.string(), z.string()).default({}),
    repair: repairSchema.default(repairSchema.parse({})),
    ledger: ledgerSchema.default(ledgerSchema.parse({})),
  })
  .strict()
  .superRefine((config, ctx) => {
    for (const [name, model] of Object.entries(config.models)) {
      if (!config.providers[model.provider]) {
        ctx.addIssue({ code: 'custom', path: ['models', name, 'provider'], message: `unknown provider '${model.provider}'` });
      }
    }
  });

export type GatewayConfig = z.infer<typeof configSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type RepairConfig = z.infer<typeof repairSchema>;
