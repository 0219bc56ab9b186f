// The metrics facade: one prom-client Registry per app instance (never the global one), typed
// methods for the request path, bounded labels. Default process_*/nodejs_* metrics keep their
// standard names on the same registry.
import { collectDefaultMetrics, Registry, type Counter } from 'prom-client';
import { defineMetrics, defineStateMetrics, type StoreReading } from './definitions.js';
import { directChild, type HistogramChild } from './histogram-child.js';
import { BoundedLabel, ModelLabels, OTHER } from './labels.js';
import { ModelHandle, ModelSeries } from './model-metrics.js';
import { pendingChild, type CounterChild } from './pending-counter.js';
import { TaskTracker } from './tasks.js';
import {
  ENDPOINTS,
  TASK_END_REASONS,
  type CostEvent,
  type CostListener,
  type Endpoint,
  type Metrics,
  type MetricsOptions,
  type ModelMetrics,
  type RequestObservation,
  type TaskEndReason,
} from './types.js';

const DEFAULT_MAX_MODEL_LABELS = 50;
const DEFAULT_TASK_IDLE_MS = 10 * 60_000;
const DEFAULT_MAX_TASKS = 10_000;
const KNOWN_ENDPOINTS: ReadonlySet<string> = new Set(ENDPOINTS);

function endpointLabel(endpoint: string): Endpoint {
  return KNOWN_ENDPOINTS.has(endpoint) ? (endpoint as Endpoint) : 'other';
}

function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : OTHER;
}

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const set = defineMetrics(registry);
  const stores = new Map<string, () => Omit<StoreReading, 'store'> | undefined>();
  defineStateMetrics(registry, () => [...stores].flatMap(([store, read]) => {
    const reading = read();
    return reading ? [{ store, ...reading }] : [];
  }));

  const providers = new BoundedLabel(100);
  const models = new ModelLabels(options.knownModels, options.maxModelLabels ?? DEFAULT_MAX_MODEL_LABELS);
  const repairKinds = new BoundedLabel(64);
  const aliasKinds = new BoundedLabel(16);

  // (provider label, model label) → series; (provider, model, upstream model) → handle, labelled only.
  const series = new Map<string, ModelSeries>();
  const handles = new Map<string, ModelHandle>();
  const costListeners = new Set<CostListener>();
  const emitCost = (event: CostEvent): void => {
    for (const listener of costListeners) listener(event);
  };

  const requestChildren = new Map<string, CounterChild>();
  const durationChildren = new Map<Endpoint, HistogramChild>(ENDPOINTS.map((endpoint) => [endpoint, directChild(set.requestDuration, { endpoint })]));
  const overheadChild = directChild(set.overhead, {});
  const repairChildren = new Map<string, Counter.Internal>();
  const endedChildren = Object.fromEntries(
    TASK_END_REASONS.map((reason) => {
      set.tasksEnded.inc({ reason }, 0);
      return [reason, set.tasksEnded.labels({ reason })];
    }),
  ) as Record<TaskEndReason, Counter.Internal>;

  const tasks = new TaskTracker({
    idleMs: options.taskIdleMs ?? DEFAULT_TASK_IDLE_MS,
    maxTasks: options.maxTasks ?? DEFAULT_MAX_TASKS,
    onEnd(calls, reason) {
      set.callsPerTask.observe(calls);
      endedChildren[reason].inc();
    },
  });

  function seriesFor(providerLabel: string, modelLabel: string): ModelSeries {
    const key = `${providerLabel}\u0000${modelLabel}`;
    let found = series.get(key);
    if (!found) {
      found = new ModelSeries(set, providerLabel, modelLabel, aliasKinds);
      series.set(key, found);
    }
    return found;
  }

  function observeRequest(observation: RequestObservation): void {
    const endpoint = endpointLabel(observation.endpoint);
    const status = statusLabel(observation.status);
    const key = `${endpoint} ${status}`;
    let requests = requestChildren.get(key);
    if (!requests) {
      requests = pendingChild(set.requests, { endpoint, status });
      requestChildren.set(key, requests);
    }
    requests.inc();
    const duration = Math.max(observation.durationSeconds, 0);
    durationChildren.get(endpoint)?.observe(duration);
    if (observation.upstreamSeconds !== undefined) {
      overheadChild.observe(Math.max(duration - observation.upstreamSeconds, 0));
    }
  }

  const metrics: Metrics = {
    contentType: registry.contentType,
    registry,

    forModel(provider: string, model: string, upstreamModel: string = model): ModelMetrics {
      const key = `${provider}\u0000${model}\u0000${upstreamModel}`;
      const cached = handles.get(key);
      if (cached) return cached;
      const providerLabel = providers.value(provider);
      const modelLabel = models.value(model);
      const handle = new ModelHandle(
        seriesFor(providerLabel, modelLabel),
        provider,
        model,
        upstreamModel,
        options.pricing(provider, upstreamModel),
        emitCost,
      );
      // Models beyond the label cap get a fresh handle each time, so this map stays bounded.
      if (providerLabel !== OTHER && modelLabel !== OTHER) handles.set(key, handle);
      return handle;
    },

    observeRequest,

    repairs(findings) {
      for (const finding of findings) {
        const kind = repairKinds.value(finding.kind);
        let child = repairChildren.get(kind);
        if (!child) {
          child = set.repairs.labels({ kind });
          repairChildren.set(kind, child);
        }
        child.inc();
      }
    },

    toolLoop(count = 1) {
      if (count > 0) set.toolLoops.inc(count);
    },
    unknownToolName(count = 1) {
      if (count > 0) set.unknownToolNames.inc(count);
    },
    invalidToolArguments(count = 1) {
      if (count > 0) set.invalidToolArguments.inc(count);
    },

    taskCall(taskKey: string, calls = 1) {
      return tasks.call(taskKey, calls);
    },
    taskEnd(taskKey: string) {
      tasks.end(taskKey);
    },

    costFor(filter = {}) {
      let total = 0;
      for (const s of series.values()) {
        if (filter.provider !== undefined && s.provider !== filter.provider) continue;
        if (filter.model !== undefined && s.model !== filter.model) continue;
        total += s.costUsd;
      }
      return total;
    },

    onCost(listener: CostListener) {
      costListeners.add(listener);
      return () => {
        costListeners.delete(listener);
      };
    },

    watchStore(store, read) {
      stores.set(store, read);
    },

    render() {
      return registry.metrics();
    },

    close() {
      tasks.close();
    },
  };
  return metrics;
}
