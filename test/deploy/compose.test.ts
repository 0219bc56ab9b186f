import { statSync } from 'node:fs';
import { join, posix } from 'node:path';
import t from 'tap';
import { parseAllDocuments, parseDocument } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import {
  containerPortsOf,
  dockerignore,
  environmentOf,
  envFileKeys,
  envOf,
  exists,
  hostPathOf,
  interpolate,
  mountsOf,
  parseDockerfile,
  yamlPlaceholders,
  read,
  readYaml,
  root,
} from './helpers.js';

// docker-compose.yml checked against the files it mounts and the configs it wires together
// (no Docker engine on the test machines: everything is static).

const composeText = read('docker-compose.yml');
const compose = parseDocument(composeText);
const spec: any = compose.toJS();
const services: Record<string, any> = spec.services ?? {};
const gatewayYaml = read('config/gateway.yaml');
const gatewayPort = parseConfig(gatewayYaml, {}, 'config/gateway.yaml').config.server.port;
const envExample = envFileKeys(read('.env.example'));
const imageEnv = envOf(parseDockerfile(read('Dockerfile')).stages.at(-1)!);

/** Values as compose would use them with no .env: every ${VAR:-default} takes its default. */
const resolved = (value: string): string => interpolate(value, {});

t.test('the compose file parses and has the stack', async (t) => {
  t.same(compose.errors, [], 'valid YAML');
  t.same(compose.warnings, [], 'no YAML warnings');
  for (const name of ['toolgate', 'prometheus', 'grafana', 'redis']) t.ok(services[name], `service ${name}`);
  t.ok(services.toolgate.build, 'toolgate is built from this repo');
  const context = typeof services.toolgate.build === 'string' ? services.toolgate.build : (services.toolgate.build.context ?? '.');
  const dockerfile = typeof services.toolgate.build === 'object' && services.toolgate.build.dockerfile ? services.toolgate.build.dockerfile : 'Dockerfile';
  t.ok(exists(posix.join(context, dockerfile)), `${dockerfile} exists in build context ${context}`);
});

t.test('every bind-mounted file or directory exists; named volumes are declared', async (t) => {
  const declared = Object.keys(spec.volumes ?? {});
  for (const [name, service] of Object.entries(services)) {
    for (const mount of mountsOf(service)) {
      if (mount.type === 'bind') {
        t.ok(exists(mount.source), `${name}: ${mount.source} exists`);
        t.ok(mount.readOnly, `${name}: ${mount.source} is mounted read-only`);
      } else {
        t.ok(declared.includes(mount.source), `${name}: volume ${mount.source} is declared`);
      }
    }
  }
});

t.test("toolgate's port agrees with config/gateway.yaml, the image and Prometheus' scrape target", async (t) => {
  const toolgate = services.toolgate;
  t.same(containerPortsOf(toolgate), [gatewayPort], `publishes container port ${gatewayPort} (server.port)`);
  const env = { ...imageEnv, ...environmentOf(toolgate) };
  t.equal(resolved(env.HOST ?? ''), '0.0.0.0', 'listens on all interfaces in the container (HOST)');
  t.notOk(env.PORT, 'no PORT override: server.port is the one source of the port');
  for (const p of toolgate.ports) t.match(resolved(String(p)), /^127\.0\.0\.1:/, `host port ${p} bound to loopback only`);

  const prometheusYml = readYaml('config/prometheus.yml');
  const targets: string[] = prometheusYml.scrape_configs.flatMap((job: any) => (job.static_configs ?? []).flatMap((s: any) => s.targets));
  t.ok(targets.includes(`toolgate:${gatewayPort}`), `prometheus scrapes toolgate:${gatewayPort} (got ${targets.join(', ')})`);
  const job = prometheusYml.scrape_configs.find((j: any) => (j.static_configs ?? []).some((s: any) => s.targets.includes(`toolgate:${gatewayPort}`)));
  t.equal(job.metrics_path ?? '/metrics', '/metrics');

  // The config file the gateway reads in the container is the repo's config/gateway.yaml.
  const configPath = resolved(env.TOOLGATE_CONFIG ?? '/app/config/gateway.yaml');
  t.equal(hostPathOf(toolgate, configPath), 'config/gateway.yaml', `${configPath} is config/gateway.yaml`);
});

t.test('every ${VAR} of config/gateway.yaml reaches the container and is in .env.example', async (t) => {
  const raw = parseAllDocuments(gatewayYaml)[0].toJS();
  const keyVars = Object.values<any>(raw.providers)
    .map((p) => (typeof p.apiKey === 'string' ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(p.apiKey.trim())?.[1] : undefined))
    .filter((v): v is string => Boolean(v));
  t.same(keyVars.sort(), ['GEMINI_API_KEY', 'HF_TOKEN', 'OPENAI_API_KEY', 'TOGETHER_API_KEY'], 'the provider keys');

  const env = environmentOf(services.toolgate);
  const envFiles: string[] = [services.toolgate.env_file ?? []].flat().map((f: any) => (typeof f === 'string' ? f : f.path));
  const fromEnvFile = (name: string): boolean => envFiles.some((f) => exists(f) && envFileKeys(read(f)).includes(name));
  for (const name of keyVars) {
    t.ok(name in env || fromEnvFile(name), `${name} is passed to toolgate`);
    t.equal(env[name], `\${${name}:-}`, `${name} comes from .env / the shell, empty when unset`);
    t.ok(envExample.includes(name), `${name} is in .env.example`);
  }
  for (const name of yamlPlaceholders(gatewayYaml)) {
    t.ok(name in env || name in imageEnv || fromEnvFile(name), `${name} reaches the container (compose env or image ENV)`);
    if (name !== 'HOST') t.ok(envExample.includes(name), `${name} is documented in .env.example`);
  }
});

t.test('every ${VAR} of the compose file is in .env.example, and .env.example has nothing unused', async (t) => {
  const used = new Set([...yamlPlaceholders(composeText), ...yamlPlaceholders(gatewayYaml)]);
  for (const name of yamlPlaceholders(composeText)) t.ok(envExample.includes(name), `${name} is in .env.example`);
  for (const name of envExample) t.ok(used.has(name), `.env.example's ${name} is used by the compose file or the config`);
  t.match(read('.gitignore'), /^\.env$/m, '.env is git-ignored');
  t.ok(dockerignore(read('.dockerignore'))('.env'), '.env is not sent to the Docker build');
});

t.test('Prometheus loads config/prometheus.yml and its rule files', async (t) => {
  const prometheus = services.prometheus;
  const flags: string[] = (prometheus.command ?? []).map(String);
  const configFile = flags.find((f) => f.startsWith('--config.file='))?.split('=')[1] ?? '/etc/prometheus/prometheus.yml';
  t.equal(hostPathOf(prometheus, configFile), 'config/prometheus.yml', `${configFile} is config/prometheus.yml`);
  for (const rule of readYaml('config/prometheus.yml').rule_files ?? []) {
    const inContainer = posix.isAbsolute(rule) ? rule : posix.join(posix.dirname(configFile), rule);
    const host = hostPathOf(prometheus, inContainer);
    t.ok(host && exists(host), `rule file ${rule} (${inContainer}) is mounted from ${host}`);
  }
  t.equal(hostPathOf(prometheus, posix.join(posix.dirname(configFile), 'alerts.yml')), 'config/alerts.yml', 'config/alerts.yml is loaded');
});

t.test('Grafana: provisioning, dashboards and home dashboard paths match the mounts', async (t) => {
  const grafana = services.grafana;
  const env = environmentOf(grafana);
  const provisioning = env.GF_PATHS_PROVISIONING ?? '/etc/grafana/provisioning';
  t.equal(hostPathOf(grafana, provisioning), 'grafana/provisioning', `${provisioning} is grafana/provisioning`);

  // Datasources point at the prometheus service.
  const datasources = readYaml('grafana/provisioning/datasources/prometheus.yml').datasources;
  const promFlags: string[] = (services.prometheus.command ?? []).map(String);
  const promPort = (promFlags.find((f) => f.startsWith('--web.listen-address='))?.split(':').pop() ?? '9090').trim();
  t.ok(datasources.some((d: any) => d.type === 'prometheus' && d.url === `http://prometheus:${promPort}`), `a datasource reads http://prometheus:${promPort}`);

  // Every file dashboard provider's path is a mounted directory of dashboards.
  const providers = readYaml('grafana/provisioning/dashboards/toolgate.yml').providers;
  t.ok(providers.length > 0, 'a dashboard provider');
  for (const provider of providers) {
    const host = hostPathOf(grafana, provider.options.path);
    t.ok(host, `dashboard provider path ${provider.options.path} is mounted`);
    t.ok(host && statSync(join(root, host)).isDirectory(), `${host} is a directory`);
  }

  const home = env.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH;
  t.ok(home, 'a home dashboard is set');
  const homeHost = hostPathOf(grafana, home);
  t.equal(homeHost, 'grafana/dashboards/toolgate.json', `${home} is the toolgate dashboard`);
  t.ok(homeHost && exists(homeHost), 'and it exists');
  t.ok(providers.some((p: any) => home.startsWith(`${p.options.path}/`)), 'the home dashboard is also provisioned');

  t.equal(env.GF_AUTH_ANONYMOUS_ENABLED, 'true', 'anonymous access');
  t.equal(env.GF_AUTH_ANONYMOUS_ORG_ROLE, 'Viewer', 'read-only for anonymous users');
  t.match(env.GF_SECURITY_ADMIN_PASSWORD, /^\$\{GRAFANA_ADMIN_PASSWORD:-.+\}$/, 'admin password from env with a default');
});

t.test('healthchecks, and depends_on waits for healthy services', async (t) => {
  for (const [name, service] of Object.entries(services)) {
    t.ok(Array.isArray(service.healthcheck?.test) && service.healthcheck.test.length > 1, `${name} has a healthcheck`);
    for (const [dep, how] of Object.entries<any>(service.depends_on ?? {})) {
      t.ok(services[dep], `${name} depends on a defined service ${dep}`);
      t.equal(how.condition, 'service_healthy', `${name} waits for ${dep} to be healthy`);
      t.ok(services[dep]?.healthcheck, `${dep} has a healthcheck to wait for`);
      t.notOk(services[dep]?.profiles, `${name} (always on) does not depend on ${dep}, which is behind a profile`);
    }
  }
  const probe = services.toolgate.healthcheck.test.join(' ');
  t.match(probe, new RegExp(`127\\.0\\.0\\.1:${gatewayPort}/(readyz|healthz)`), 'toolgate is probed on its port');
  t.notMatch(probe, /\bcurl\b|\bwget\b/, 'with node (the slim image has no curl or wget)');
  t.ok(services.prometheus.depends_on?.toolgate, 'prometheus starts after toolgate');
  t.ok(services.grafana.depends_on?.prometheus, 'grafana starts after prometheus');
});

t.test('redis is optional (profile "redis") and documented for the state config', async (t) => {
  t.same(services.redis.profiles, ['redis']);
  t.match(composeText, /state: \{ type: redis, url: redis:\/\/redis:6379 \}/, 'how the gateway would use it');
  for (const [name, service] of Object.entries(services)) if (name !== 'redis') t.notOk(service.profiles, `${name} starts by default`);
});
