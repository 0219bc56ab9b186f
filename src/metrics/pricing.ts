// Token prices for toolgate_cost_usd_total. Config prices win; the shipped table is a fallback.
//
// The shipped prices are public LIST prices in USD per 1M tokens as of DEFAULT_PRICES_AS_OF.
// They go stale (providers cut prices often, discounts, batch and long-context tiers are not
// modelled): set `pricing` in config for anything a budget depends on. Open-weight models are
// priced at Together AI's serverless list prices; another host needs a config entry.

/**
 * USD per 1M tokens (the shape of a model's `pricing` in config). `cachedInputPerMTok` applies
 * to prompt tokens the upstream reports as cached; without it they cost `inputPerMTok`.
 */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
  cachedInputPerMTok?: number;
}

/**
 * Config prices for createPriceLookup. Keys, most specific first: "<provider>/<upstream model>",
 * "<upstream model>", "<provider>/*" (e.g. a self-hosted provider that costs nothing).
 */
export type PriceTable = Readonly<Record<string, Price | undefined>>;

export type PriceLookup = (provider: string, upstreamModel: string) => Price | undefined;

export const DEFAULT_PRICES_AS_OF = '2025-12';

interface DefaultPrice {
  /** Tested against the normalized model id (lower case, last path segment, no `models/`). */
  match: RegExp;
  price: Price;
}

const p = (inputPerMTok: number, outputPerMTok: number, cachedInputPerMTok?: number): Price =>
  cachedInputPerMTok === undefined ? { inputPerMTok, outputPerMTok } : { inputPerMTok, outputPerMTok, cachedInputPerMTok };

/** First match wins: specific names before their families. */
export const DEFAULT_PRICES: readonly DefaultPrice[] = [
  // OpenAI
  { match: /^gpt-4o-mini(-|$)/, price: p(0.15, 0.6, 0.075) },
  { match: /^gpt-4o(-|$)/, price: p(2.5, 10, 1.25) },
  { match: /^gpt-4\.1-nano(-|$)/, price: p(0.1, 0.4, 0.025) },
  { match: /^gpt-4\.1-mini(-|$)/, price: p(0.4, 1.6, 0.1) },
  { match: /^gpt-4\.1(-|$)/, price: p(2, 8, 0.5) },
  { match: /^o4-mini(-|$)/, price: p(1.1, 4.4, 0.275) },
  { match: /^o3-mini(-|$)/, price: p(1.1, 4.4, 0.55) },
  { match: /^o3-pro(-|$)/, price: p(20, 80) },
  { match: /^o3(-|$)/, price: p(2, 8, 0.5) },
  { match: /^gpt-5(\.\d+)?-pro(-|$)/, price: p(15, 120) },
  { match: /^gpt-5(\.\d+)?-nano(-|$)/, price: p(0.05, 0.4, 0.005) },
  { match: /^gpt-5(\.\d+)?-mini(-|$)/, price: p(0.25, 2, 0.025) },
  { match: /^gpt-5\.2(-|$)/, price: p(1.75, 14, 0.175) },
  { match: /^gpt-5(\.1)?(-|$)/, price: p(1.25, 10, 0.125) },
  // Google Gemini (prompts up to 200k tokens; longer prompts cost more on the pro models)
  { match: /^gemini-3(\.\d+)?-pro(-|$)/, price: p(2, 12, 0.2) },
  { match: /^gemini-3(\.\d+)?-flash(-|$)/, price: p(0.5, 3, 0.05) },
  { match: /^gemini-2\.5-pro(-|$)/, price: p(1.25, 10, 0.125) },
  { match: /^gemini-2\.5-flash-lite(-|$)/, price: p(0.1, 0.4, 0.01) },
  { match: /^gemini-2\.5-flash(-|$)/, price: p(0.3, 2.5, 0.03) },
  { match: /^gemini-2\.0-flash-lite(-|$)/, price: p(0.075, 0.3) },
  { match: /^gemini-2\.0-flash(-|$)/, price: p(0.1, 0.4, 0.025) },
  // Open-weight models at Together AI list prices
  { match: /(^|-)llama-3(\.\d)?-405b/, price: p(3.5, 3.5) },
  { match: /(^|-)llama-3(\.\d)?-70b/, price: p(0.88, 0.88) },
  { match: /(^|-)llama-3(\.\d)?-8b/, price: p(0.18, 0.18) },
  { match: /(^|-)llama-3\.2-3b/, price: p(0.06, 0.06) },
  { match: /(^|-)llama-4-maverick/, price: p(0.27, 0.85) },
  { match: /(^|-)llama-4-scout/, price: p(0.18, 0.59) },
  { match: /^qwen2\.5-72b/, price: p(1.2, 1.2) },
  { match: /^qwen2\.5-coder-32b/, price: p(0.8, 0.8) },
  { match: /^qwen2\.5-7b/, price: p(0.3, 0.3) },
  { match: /^deepseek-v3/, price: p(1.25, 1.25) },
  { match: /^deepseek-r1$/, price: p(3, 7) },
  // DeepSeek's own API (V3.2 prices)
  { match: /^deepseek-(chat|reasoner)$/, price: p(0.28, 0.42, 0.028) },
];

/** "models/gemini-2.5-flash" → "gemini-2.5-flash"; "meta-llama/Llama-3.3-70B-Instruct-Turbo" → "llama-3.3-70b-instruct-turbo". */
export function normalizeModelId(upstreamModel: string): string {
  const lower = upstreamModel.toLowerCase();
  const slash = lower.lastIndexOf('/');
  return slash === -1 ? lower : lower.slice(slash + 1);
}

/**
 * The price of one upstream model: the configured price when there is one, else the shipped
 * list price (matched on the normalized model id), else undefined (unpriced). `provider` is the
 * config name; the shipped table does not depend on it.
 */
export function priceFor(_provider: string, upstreamModel: string, configured?: Price): Price | undefined {
  if (configured) return configured;
  const id = normalizeModelId(upstreamModel);
  return DEFAULT_PRICES.find((entry) => entry.match.test(id))?.price;
}

/** A PriceLookup over config prices (keys as in PriceTable), falling back to the shipped table. */
export function createPriceLookup(configured: PriceTable = {}): PriceLookup {
  return (provider, upstreamModel) =>
    priceFor(
      provider,
      upstreamModel,
      configured[`${provider}/${upstreamModel}`] ?? configured[upstreamModel] ?? configured[`${provider}/*`],
    );
}

export interface TokenCounts {
  /** All prompt tokens, cached ones included (as OpenAI reports them). */
  prompt: number;
  /** All completion tokens, reasoning included. */
  completion: number;
  cachedPrompt?: number;
}

export function costUsd(price: Price, tokens: TokenCounts): number {
  const cached = Math.min(Math.max(tokens.cachedPrompt ?? 0, 0), tokens.prompt);
  const micro =
    (tokens.prompt - cached) * price.inputPerMTok +
    cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
    tokens.completion * price.outputPerMTok;
  return micro / 1_000_000;
}
