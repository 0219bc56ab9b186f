import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isRecord } from '../is-record.js';
import { withBindings } from '../logging.js';
import { taskKeyFor } from '../metrics/index.js';
import { endpointOf, isPipelineRoute, peekRequestInfo, requestInfoOf } from './request-context.js';
import { linkRequestTrace } from '../tracing/index.js';
import type { RequestFacts, RequestTrace, Tracing } from '../tracing/types.js';

// The Fastify side of tracing, registered only when tracing is on: a SERVER span from onRequest
// to the response's close, the request's log lines carrying its trace id, and the link that lets
// the upstream caller hang its CLIENT spans under it. Health probes and /metrics scrapes are not
// traced (they would bury the requests that matter).

const TRACE = Symbol('toolgate.trace');
type Traced = FastifyRequest & { [TRACE]?: RequestTrace };

export function registerTracing(app: FastifyInstance, tracing: Tracing): void {
  app.addHook('onRequest', (request, reply, done) => {
    const endpoint = endpointOf(request);
    if (endpoint === 'health' || endpoint === 'metrics') return done();
    const trace = tracing.startRequest({
      method: request.method,
      route: request.routeOptions.url,
      path: request.url.split('?')[0],
      requestId: request.id,
      headers: request.headers,
    });
    (request as Traced)[TRACE] = trace;
    // Every line this request logs (the access line included) names its trace.
    request.log = withBindings(request.log, trace.logFields, app.log);
    reply.log = request.log;
    reply.raw.once('close', () => trace.end(factsOf(request, reply)));
    done();
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const trace = (request as Traced)[TRACE];
    if (trace && isPipelineRoute(request)) {
      linkRequestTrace(requestInfoOf(request, endpointOf(request)), trace);
      trace.body(request.body);
    }
    done();
  });
}

function factsOf(request: FastifyRequest, reply: FastifyReply): RequestFacts {
  const info = peekRequestInfo(request);
  const facts: RequestFacts = { status: reply.raw.statusCode, clientAborted: !reply.raw.writableFinished, repairs: [] };
  if (!info) return facts;
  const state = info.facts;
  return {
    ...facts,
    // What the client got in x-toolgate-repairs: advisory findings (changed nothing) are left out.
    repairs: info.repairs.flatMap((note) => note.findings.filter((finding) => finding.advisory !== true)),
    model: state.model,
    provider: state.provider,
    stream: state.stream,
    toolCallSource: state.toolMode,
    llmCalls: info.llmCalls,
    error: state.error,
    keyName: state.keyName,
    taskId: taskIdOf(request),
    ...(info.contract.length > 0 ? { contractViolations: [...new Set(info.contract.flatMap((note) => note.violations.map((violation) => violation.kind)))], contractReasks: info.reasksSent } : {}),
  };
}

/** The task the client named (header, metadata, `user`); a fingerprint of the prompt is not put on spans. */
function taskIdOf(request: FastifyRequest): string | undefined {
  const body = isRecord(request.body) ? request.body : {};
  const header = request.headers['x-toolgate-task-id'];
  if (header === undefined && body.user === undefined && body.metadata === undefined) return undefined;
  const key = taskKeyFor({ headerTaskId: typeof header === 'string' ? header : undefined, user: body.user, metadata: body.metadata, messages: [] });
  return key.startsWith('once:') ? undefined : key;
}
