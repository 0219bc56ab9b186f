import { readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import t from 'tap';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { parseConfig, type LoadedConfig } from '../../src/config/load.js';
import { read, root } from './helpers.js';

// deploy/kubernetes, checked statically (no cluster here): manifests parse, probes, ports, the
// Service, the HPA and the Secret line up with the Deployment, and the ConfigMap's gateway config
// passes the real config schema.

const dir = 'deploy/kubernetes';
const kustomization = parseYaml(read(`${dir}/kustomization.yaml`));
const resources: Array<{ file: string; doc: any }> = [];
const parseErrors: string[] = [];
for (const file of kustomization.resources as string[]) {
  for (const doc of parseAllDocuments(read(`${dir}/${file}`))) {
    parseErrors.push(...doc.errors.map((e) => `${file}: ${e.message}`));
    const js = doc.toJS();
    if (js) resources.push({ file, doc: js });
  }
}
const find = (kind: string, name: string): any => resources.find((r) => r.doc.kind === kind && r.doc.metadata?.name === name)?.doc;

const deployment = find('Deployment', 'toolgate');
const container = deployment?.spec.template.spec.containers.find((c: any) => c.name === 'toolgate');
const configMap = find('ConfigMap', 'toolgate-config');
const secret = find('Secret', 'toolgate-provider-keys');

/** A probe or Service port (number or container port name) → the container port number. */
function portNumber(port: number | string, owner: any = container): number | undefined {
  if (typeof port === 'number') return port;
  return owner.ports.find((p: any) => p.name === port)?.containerPort;
}

const matches = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

t.test('the kustomization lists every manifest, and they all parse', async (t) => {
  t.same(parseErrors, [], 'valid YAML');
  const files = readdirSync(join(root, dir)).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
  t.same([...kustomization.resources].sort(), files.sort(), 'every manifest is a kustomization resource');
  for (const { file, doc } of resources) {
    t.ok(doc.apiVersion && doc.kind && doc.metadata?.name, `${file}: ${doc.kind}/${doc.metadata?.name} has apiVersion, kind, name`);
  }
  const kinds = resources.map((r) => `${r.doc.kind}/${r.doc.metadata.name}`).sort();
  for (const want of [
    'ConfigMap/toolgate-config',
    'Deployment/toolgate',
    'Deployment/toolgate-redis',
    'HorizontalPodAutoscaler/toolgate',
    'Secret/toolgate-provider-keys',
    'Service/toolgate',
    'Service/toolgate-redis',
  ]) {
    t.ok(kinds.includes(want), want);
  }
  t.ok(kustomization.images.some((i: any) => i.name === container.image), `kustomize sets the image ${container.image}`);
});

t.test('the Deployment: replicas, probes, resources, env, config mount', async (t) => {
  const spec = deployment.spec;
  t.equal(spec.replicas, 2, '2 replicas');
  t.ok(matches(spec.selector.matchLabels, spec.template.metadata.labels), 'selector matches the pod labels');

  const gatewayPort = gatewayConfig().config.server.port;
  t.same(container.ports.map((p: any) => p.containerPort), [gatewayPort], `container port ${gatewayPort} = the ConfigMap's server.port`);
  t.equal(container.readinessProbe.httpGet.path, '/readyz', 'readiness on /readyz');
  t.equal(container.livenessProbe.httpGet.path, '/healthz', 'liveness on /healthz');
  t.equal(portNumber(container.readinessProbe.httpGet.port), gatewayPort, 'readiness probe hits the container port');
  t.equal(portNumber(container.livenessProbe.httpGet.port), gatewayPort, 'liveness probe hits the container port');

  t.ok(container.resources.requests.cpu, 'a CPU request (the HPA needs it)');
  t.ok(container.resources.requests.memory, 'a memory request');
  t.ok(container.resources.limits.memory, 'a memory limit');

  const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value]));
  t.equal(env.HOST, '0.0.0.0', 'HOST=0.0.0.0');
  t.ok(container.envFrom.some((e: any) => e.secretRef?.name === secret.metadata.name), 'env from the Secret');

  const configVolume = spec.template.spec.volumes.find((v: any) => v.configMap?.name === configMap.metadata.name);
  t.ok(configVolume, 'the ConfigMap is a volume');
  const mount = container.volumeMounts.find((m: any) => m.name === configVolume.name);
  t.equal(mount?.mountPath, '/app/config', 'mounted at /app/config');
  t.equal(env.TOOLGATE_CONFIG, '/app/config/gateway.yaml', 'TOOLGATE_CONFIG names the mounted file');
  t.ok(configMap.data[posix.basename(env.TOOLGATE_CONFIG)], 'which is a key of the ConfigMap');

  const pod = spec.template.spec;
  t.ok(pod.securityContext.runAsNonRoot, 'runs as non-root');
  const sleep = Number(container.lifecycle?.preStop?.exec?.command?.at(-1) ?? 0);
  const grace = gatewayConfig().config.server.shutdownGraceMs / 1000;
  t.ok(pod.terminationGracePeriodSeconds > grace + sleep, `terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} > preStop ${sleep}s + shutdownGraceMs ${grace}s`);
  t.equal(Number(spec.template.metadata.annotations['prometheus.io/port']), gatewayPort, 'scrape annotation on the container port');
});

t.test('the Service targets the container port; the HPA the Deployment', async (t) => {
  const service = find('Service', 'toolgate');
  t.ok(matches(service.spec.selector, deployment.spec.template.metadata.labels), 'Service selects the toolgate pods');
  t.notOk(matches(service.spec.selector, find('Deployment', 'toolgate-redis').spec.template.metadata.labels), 'and not Redis');
  for (const port of service.spec.ports) t.equal(portNumber(port.targetPort ?? port.port), gatewayConfig().config.server.port, `port ${port.port} → container port`);

  const hpa = find('HorizontalPodAutoscaler', 'toolgate');
  t.equal(hpa.apiVersion, 'autoscaling/v2');
  t.same(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name }, 'scales the toolgate Deployment');
  t.ok(hpa.spec.minReplicas >= deployment.spec.replicas, 'minReplicas keeps the 2 replicas');
  t.ok(hpa.spec.maxReplicas > hpa.spec.minReplicas);
  t.ok(hpa.spec.metrics.some((m: any) => m.type === 'Resource' && m.resource.name === 'cpu' && m.resource.target.type === 'Utilization'), 'on CPU utilization');
});

t.test('the Secret provides every provider key of the gateway config', async (t) => {
  t.ok(secret.stringData, 'placeholders via stringData');
  const keyVars = Object.values(gatewayConfig().keyEnvVars);
  t.ok(keyVars.length >= 4, `${keyVars.join(', ')}`);
  for (const name of keyVars) t.ok(name in secret.stringData, `${name} in the Secret`);
});

t.test('Redis: Deployment + Service, and the config points at it', async (t) => {
  const redis = find('Deployment', 'toolgate-redis');
  const service = find('Service', 'toolgate-redis');
  const redisContainer = redis.spec.template.spec.containers[0];
  t.ok(matches(service.spec.selector, redis.spec.template.metadata.labels), 'Service selects Redis');
  t.ok(matches(redis.spec.selector.matchLabels, redis.spec.template.metadata.labels));
  const port = service.spec.ports[0];
  t.equal(portNumber(port.targetPort, redisContainer), 6379, 'targets Redis port 6379');
  const state = (parseYaml(configMap.data['gateway.yaml']) as any).state;
  t.same(state, { type: 'redis', url: `redis://${service.metadata.name}:${port.port}` }, 'state: redis at the Service');
});

t.test("the ConfigMap's gateway config passes the real config schema, shared state included", async (t) => {
  const { config } = gatewayConfig();
  t.ok(config.providers.simulator, 'parsed and validated by parseConfig');
  t.equal(config.server.host, '0.0.0.0', 'listens on all interfaces');
  t.equal(config.auth.keys.length, 1, 'so it needs a gateway key (no open relay)');
  t.ok('TOOLGATE_GATEWAY_KEY' in secret.stringData, 'the key comes from the Secret');
  t.throws(() => parseConfig(configMap.data['gateway.yaml'], { OPENAI_API_KEY: 'x' }, 'k8s'), /TOOLGATE_GATEWAY_KEY|auth\.keys/, 'an unset gateway key fails startup');
  t.equal(config.state.type, 'redis', 'state in Redis, shared by the replicas');
  t.same(Object.keys(config.providers).sort(), Object.keys(parseConfig(read('config/gateway.yaml'), {}).config.providers).sort(), 'the same providers as config/gateway.yaml');
  t.same(Object.keys(config.models).sort(), Object.keys(parseConfig(read('config/gateway.yaml'), {}).config.models).sort(), 'the same models as config/gateway.yaml');
});

let cached: LoadedConfig | undefined;
/** parseConfig (the real loader and schema) over the ConfigMap's gateway.yaml, keys set. */
function gatewayConfig(): LoadedConfig {
  const env = { OPENAI_API_KEY: 'placeholder', HF_TOKEN: 'placeholder', TOGETHER_API_KEY: 'placeholder', GEMINI_API_KEY: 'placeholder', TOOLGATE_GATEWAY_KEY: 'tg-placeholder-key' };
  cached ??= parseConfig(configMap.data['gateway.yaml'], env, `${dir}/configmap.yaml gateway.yaml`);
  return cached;
}
