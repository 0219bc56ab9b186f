import type { Logger } from 'pino';
import type { NameCaches } from './name-caches.js';
import type { ToolSupportMemory } from './tool-support.js';
import type { ReasoningSupportMemory } from './reasoning-support.js';
import type { ContractCapabilities } from '../contract/capabilities.js';
import type { GatewayAuth } from '../auth/index.js';
import type { LoadedConfig } from '../config/load.js';
import type { CallLedger } from '../ledger/types.js';
import type { ProviderAdapter } from '../providers/types.js';
import type { ModelRouter } from '../routing/router.js';
import type { Metrics } from '../metrics/index.js';
import type { RepairOptions } from '../repair/types.js';
import type { Resilience } from '../resilience/index.js';
import type { ResponseStore } from '../state/response-store.js';
import type { WorkBudgetStore } from '../state/work-budgets.js';

export interface UpstreamCaches {
  names: NameCaches;
  toolSupport: ToolSupportMemory;
  /** Models that need reasoning back, or refuse it, as their upstreams said (reasoning-support.ts). */
  reasoningSupport: ReasoningSupportMemory;
  /** Contract fields (tool_choice values, parallel_tool_calls) models rejected, as their upstreams said (contract/capabilities.ts). */
  contractCapabilities: ContractCapabilities;
}

/** Everything a request needs, built once at startup and shared read-only by the pipeline. */
export interface Gateway {
  loaded: LoadedConfig;
  router: ModelRouter;
  providers: ReadonlyMap<string, ProviderAdapter>;
  ledger: CallLedger;
  /** Responses API state: stored responses and their items (previous_response_id, item_reference). */
  responseStore: ResponseStore;
  metrics: Metrics;
  repairOptions: RepairOptions;
  log: Logger;
  /** The upstream caller's per-instance caches: tool-name codecs/resolvers, models downgraded to prompt mode. */
  upstream: UpstreamCaches;
  /** Lower-cased client header names forwarded upstream. */
  forwardHeaderNames: ReadonlySet<string>;
  /** Gateway keys, their model globs and limits (disabled when no key is configured). */
  auth: GatewayAuth;
  /** Per-provider retry policies and circuit breakers. */
  resilience: Resilience;
  /** Best-effort work budgets (JSON repair), one set per gateway key scope. */
  workBudgets: WorkBudgetStore;
}
