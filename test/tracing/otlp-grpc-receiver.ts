import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type ServiceDefinition } from '@grpc/grpc-js';

// A tiny in-process OTLP/gRPC collector for the tracing tests: it answers
// opentelemetry.proto.collector.trace.v1.TraceService/Export with an empty ExportTraceServiceResponse
// (zero bytes in protobuf) and keeps each request's raw bytes (latin1 text, for greps) and metadata.
// Requests are not decoded: span names and ids are greppable in the protobuf bytes.

export interface OtlpGrpcReceiver {
  /** The collector address, e.g. http://127.0.0.1:4317 (plaintext). */
  url: string;
  bodies: string[];
  metadata: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

const identity = (bytes: Buffer): Buffer => bytes;
const service: ServiceDefinition = {
  Export: {
    path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
    originalName: 'Export',
  },
};

export async function startOtlpGrpcReceiver(): Promise<OtlpGrpcReceiver> {
  const bodies: string[] = [];
  const metadata: Array<Record<string, unknown>> = [];
  const server = new Server();
  server.addService(service, {
    Export(call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) {
      bodies.push(call.request.toString('latin1'));
      metadata.push(call.metadata.getMap());
      callback(null, Buffer.alloc(0));
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    metadata,
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}
