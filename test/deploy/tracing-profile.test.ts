import { readFileSync } from 'node:fs';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { tracingSchema } from '../../src/config/schema.js';
import { resolveTracing } from '../../src/tracing/settings.js';

// The compose stack's tracing profile (Jaeger) and the Grafana dashboard's request-id links,
// checked statically (no Docker engine on the test machines).

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const compose = parseYaml(read('docker-compose.yml')) as { include?: string[]; services: Record<string, { environment: Record<string, string>; ports?: string[] }> };
const tracingFile = parseYaml(read('docker-compose.tracing.yml')) as { services: Record<string, { profiles?: string[]; command?: string[]; ports?: string[]; healthcheck?: { test: string[] } }> };
/** `${VAR:-default}` as compose resolves it with the variables given (none: every default). */
const resolve = (value: string, env: Record<string, string> = {}): string =>
  value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback?: string) => env[name] || (fallback ?? ''));

t.test('Jaeger is included, behind the tracing profile, with OTLP/HTTP reachable on the compose network', async (t) => {
  t.ok(compose.include?.includes('docker-compose.tracing.yml'), 'docker-compose.yml includes the tracing file');
  const jaeger = tracingFile.services.jaeger;
  t.same(jaeger.profiles, ['tracing']);
  t.ok(jaeger.command?.includes('receivers.otlp.protocols.http.endpoint=0.0.0.0:4318'), 'OTLP/HTTP on all interfaces');
  t.same(jaeger.ports, ['127.0.0.1:16686:16686'], 'only the UI, on loopback');
  t.ok(jaeger.healthcheck?.test.length, 'a healthcheck');
  t.notOk(compose.services.jaeger, 'not among the services that always start');
});

t.test("the gateway's OTEL_* variables: off by default, on Jaeger with the documented endpoint", async (t) => {
  const environment = compose.services.toolgate.environment;
  const envWith = (values: Record<string, string>): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, resolve(value, values)]));
  const file = tracingSchema.parse({});
  t.equal(resolveTracing(file, envWith({})).settings, undefined, 'no .env: tracing off');
  const documented = /OTEL_EXPORTER_OTLP_ENDPOINT=(\S+) docker compose --profile tracing/.exec(read('docker-compose.yml'))?.[1];
  t.equal(documented, 'http://jaeger:4318', 'the command in the compose header');
  const on = resolveTracing(file, envWith({ OTEL_EXPORTER_OTLP_ENDPOINT: documented ?? '' })).settings;
  t.match(on, { url: 'http://jaeger:4318/v1/traces', protocol: 'http/protobuf', serviceName: 'toolgate', captureContent: false });
});

t.test('the Grafana dashboard links a request id to the inspector and to its trace', async (t) => {
  const dashboard = JSON.parse(read('grafana/dashboards/toolgate.json')) as {
    links: Array<{ title: string; url: string }>;
    templating: { list: Array<{ name: string; type: string; query: unknown }> };
  };
  const variables = new Map(dashboard.templating.list.map((variable) => [variable.name, variable]));
  t.equal(variables.get('request_id')?.type, 'textbox');
  const inspector = dashboard.links.find((link) => link.url.includes('/inspector'));
  t.equal(inspector?.url, '${toolgate_url}/inspector?id=${request_id:percentencode}');
  const gatewayPort = resolve(compose.services.toolgate.ports?.[0] ?? '').split(':')[1];
  t.equal(variables.get('toolgate_url')?.query, `http://127.0.0.1:${gatewayPort}`, 'the compose stack’s gateway address');
  const jaeger = dashboard.links.find((link) => link.url.includes('${jaeger_url}'));
  t.match(jaeger?.url, /tags=.*toolgate\.request\.id.*\$\{request_id:percentencode\}/);
  t.equal(variables.get('jaeger_url')?.query, `http://${tracingFile.services.jaeger.ports?.[0].split(':').slice(0, 2).join(':')}`);
});
