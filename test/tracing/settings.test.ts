import t from 'tap';
import { tracingSchema } from '../../src/config/schema.js';
import { resolveTracing } from '../../src/tracing/settings.js';

// Which of the config file and the standard OTEL_* variables decides what (docs/tracing.md).

const file = (fields: Record<string, unknown> = {}) => tracingSchema.parse(fields);

t.test('off by default: no section, no variables', async (t) => {
  t.equal(resolveTracing(file(), {}).settings, undefined);
});

t.test('the config file alone turns it on, with its fields', async (t) => {
  const { settings, warnings } = resolveTracing(file({ enabled: true, endpoint: 'http://collector:4318/', protocol: 'http/json', serviceName: 'gw', sampler: 'traceidratio', samplerRatio: 0.25, captureContent: true }), {});
  t.same(settings, { url: 'http://collector:4318/v1/traces', protocol: 'http/json', serviceName: 'gw', sampler: 'traceidratio', samplerRatio: 0.25, captureContent: true });
  t.same(warnings, []);
});

t.test('defaults: http/protobuf to localhost:4318, parent-based always-on, no content', async (t) => {
  t.same(resolveTracing(file({ enabled: true }), {}).settings, {
    url: 'http://localhost:4318/v1/traces',
    protocol: 'http/protobuf',
    serviceName: 'toolgate',
    sampler: 'parentbased_always_on',
    samplerRatio: 1,
    captureContent: false,
  });
});

t.test('an endpoint variable alone turns it on; the variables win over the file', async (t) => {
  t.equal(resolveTracing(file(), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }).settings?.url, 'http://a:4318/v1/traces');
  t.equal(resolveTracing(file(), { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom' }).settings?.url, 'http://b:4318/custom', 'the signal endpoint is used as is');
  t.equal(resolveTracing(file(), { OTEL_TRACES_EXPORTER: 'otlp' }).settings?.url, 'http://localhost:4318/v1/traces');
  const { settings } = resolveTracing(file({ enabled: true, endpoint: 'http://file:4318', protocol: 'http/protobuf', serviceName: 'file', sampler: 'always_off' }), {
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/v1/traces',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'env',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.1',
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
  });
  t.same(settings, { url: 'http://traces:4318/v1/traces', protocol: 'http/json', serviceName: 'env', sampler: 'parentbased_traceidratio', samplerRatio: 0.1, captureContent: true });
  t.equal(resolveTracing(file({ enabled: true }), { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }).settings?.protocol, 'http/json', 'the traces protocol wins');
  t.equal(resolveTracing(file({ enabled: true, captureContent: true }), { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' }).settings?.captureContent, false);
});

t.test('OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off whatever else says', async (t) => {
  const on = file({ enabled: true });
  t.equal(resolveTracing(on, { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a' }).settings, undefined);
  t.equal(resolveTracing(on, { OTEL_SDK_DISABLED: 'TRUE' }).settings, undefined);
  t.equal(resolveTracing(on, { OTEL_TRACES_EXPORTER: 'none' }).settings, undefined);
  t.ok(resolveTracing(on, { OTEL_SDK_DISABLED: 'false' }).settings, 'only "true" disables');
  t.ok(resolveTracing(on, { OTEL_SDK_DISABLED: '' }).settings, 'empty means unset');
});

t.test('what cannot be honoured is named in a warning and replaced by the default', async (t) => {
  const thrift = resolveTracing(file({ enabled: true }), { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/thrift' });
  t.equal(thrift.settings?.protocol, 'http/protobuf');
  t.match(thrift.warnings, [/http\/thrift.*not supported/]);
  const sampler = resolveTracing(file({ enabled: true }), { OTEL_TRACES_SAMPLER: 'jaeger_remote' });
  t.equal(sampler.settings?.sampler, 'parentbased_always_on');
  t.match(sampler.warnings, [/jaeger_remote/]);
  const ratio = resolveTracing(file({ enabled: true, samplerRatio: 0.5 }), { OTEL_TRACES_SAMPLER_ARG: '2' });
  t.equal(ratio.settings?.samplerRatio, 0.5);
  t.match(ratio.warnings, [/OTEL_TRACES_SAMPLER_ARG=2/]);
  t.match(resolveTracing(file(), { OTEL_TRACES_EXPORTER: 'zipkin' }).warnings, [/zipkin/]);
});

t.test('gRPC: the endpoint is the collector address as given (no signal path), 4317 by default', async (t) => {
  t.same(resolveTracing(file({ enabled: true, protocol: 'grpc' }), {}), {
    settings: { url: 'http://localhost:4317', protocol: 'grpc', serviceName: 'toolgate', sampler: 'parentbased_always_on', samplerRatio: 1, captureContent: false },
    warnings: [],
  });
  t.equal(resolveTracing(file({ enabled: true, endpoint: 'https://collector:4317', protocol: 'grpc' }), {}).settings?.url, 'https://collector:4317');
  const env = resolveTracing(file(), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
  t.same([env.settings?.url, env.settings?.protocol, env.warnings], ['http://otel:4317', 'grpc', []]);
  const traces = resolveTracing(file(), { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
  t.same([traces.settings?.url, traces.settings?.protocol], ['http://traces:4317', 'grpc']);
  // The HTTP protocols still append /v1/traces to a base endpoint.
  t.equal(resolveTracing(file(), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' }).settings?.url, 'http://otel:4318/v1/traces');
});

t.test('the config schema refuses what it cannot use', async (t) => {
  t.throws(() => file({ protocol: 'http/thrift' }));
  t.throws(() => file({ samplerRatio: 1.5 }));
  t.throws(() => file({ endpoint: 'not a url' }));
  t.throws(() => file({ unknown: true }), 'strict');
});
