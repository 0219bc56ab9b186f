import type { FastifyBaseLogger } from 'fastify';
import type { InspectorConfig } from '../config/schema.js';
import type { RequestInfo } from '../pipeline/request-info.js';
import { scopeOf } from '../util/scope.js';
import { buildRecord, type RequestEnd } from './record.js';
import { InspectorStore } from './store.js';

export { InspectorStore } from './store.js';
export type { InspectorRecord, RecordSummary, Outcome } from './record.js';

/** The inspector of one gateway instance: records each chat / Responses request when it ends. */
export class Inspector {
  readonly store: InspectorStore;

  constructor(
    readonly config: InspectorConfig,
    redact: (text: string) => string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.store = new InspectorStore({ maxBytes: config.maxBytes, maxRecordBytes: config.maxRecordBytes, redact });
  }

  record(info: RequestInfo, end: RequestEnd): void {
    try {
      this.store.add(buildRecord(info, end, { captureContent: this.config.captureContent }), scopeOf(info.keyName));
    } catch (error) {
      // Best effort: the response is already out; a record that cannot be built is only logged.
      this.log.warn({ err: error, reqId: end.id }, 'inspector: request not recorded');
    }
  }
}
