import { posix } from 'node:path';
import t from 'tap';
import { parseConfig } from '../../src/config/load.js';
import { commandOf, copiesOf, dockerignore, envOf, exists, filesUnder, parseDockerfile, read, readYaml } from './helpers.js';

// The Dockerfile, checked statically: stages, what it copies (and that .dockerignore lets it),
// the user, the healthcheck, the port and the start command.

const dockerfile = parseDockerfile(read('Dockerfile'));
const ignored = dockerignore(read('.dockerignore'));
const pkg = JSON.parse(read('package.json'));
const gatewayPort = parseConfig(read('config/gateway.yaml'), {}, 'config/gateway.yaml').config.server.port;
const final = dockerfile.stages.at(-1)!;
const runs = (stage: typeof final): string[] => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);

t.test('multi-stage: dev dependencies to build, production dependencies to run', async (t) => {
  t.ok(dockerfile.stages.length >= 2, `${dockerfile.stages.length} stages`);
  const build = dockerfile.stages.find((s) => runs(s).some((r) => /\bnpm run build\b/.test(r)));
  t.ok(build, 'a stage runs npm run build');
  if (!build) return;
  t.not(build, final, 'the build stage is not the runtime stage');
  t.ok(build.name, 'the build stage is named');
  const buildRuns = runs(build).join('\n');
  t.match(buildRuns, /\bnpm ci\b/, 'build stage installs from the lockfile');
  t.notMatch(buildRuns, /--omit=dev|--production/, 'with dev dependencies (TypeScript)');
  t.ok(runs(build).findIndex((r) => /\bnpm ci\b/.test(r)) < runs(build).findIndex((r) => /\bnpm run build\b/.test(r)), 'installs before building');

  const finalRuns = runs(final).join('\n');
  t.match(finalRuns, /\bnpm ci\b[^\n]*--omit=dev/, 'runtime stage: npm ci --omit=dev');
  t.notMatch(finalRuns, /\bnpm run build\b/, 'nothing is compiled in the runtime stage');
  const fromBuild = copiesOf(final).filter((c) => c.from === build.name || c.from === String(build.index));
  t.ok(fromBuild.some((c) => c.sources.some((s) => /^(\/app\/)?dist\/?$/.test(s))), 'the runtime stage takes dist/ from the build stage');
  t.equal(final.instructions.filter((i) => i.keyword === 'WORKDIR').at(-1)?.args, '/app', 'WORKDIR /app');
});

t.test('a current Node LTS slim base image', async (t) => {
  for (const stage of dockerfile.stages) {
    const match = /^node:(\d+)(?:[.\w-]*)?-slim$|^node:(\d+)-(?:bookworm|trixie)-slim$/.exec(stage.image);
    t.ok(match, `${stage.name ?? stage.index}: ${stage.image} is a slim node image`);
    const major = Number(match?.[1] ?? match?.[2]);
    t.ok(major >= 22 && major % 2 === 0, `Node ${major} is an LTS line (even, ≥ 22)`);
    t.ok(major >= Number(/\d+/.exec(pkg.engines.node)![0]), 'satisfies package.json engines');
  }
  t.equal(new Set(dockerfile.stages.map((s) => s.image)).size, 1, 'build and runtime use the same Node');
});

t.test('COPY sources exist and are in the build context (not excluded by .dockerignore)', async (t) => {
  let checked = 0;
  for (const stage of dockerfile.stages) {
    for (const copy of copiesOf(stage)) {
      if (copy.from) continue;
      for (const source of copy.sources) {
        const path = posix.normalize(source).replace(/\/$/, '');
        t.ok(exists(path), `${source} exists`);
        const files = filesUnder(path).filter((f) => !/(^|\/)\.DS_Store$|\.swp$/.test(f));
        t.ok(files.length > 0, `${source} has files`);
        const dropped = files.filter(ignored);
        t.same(dropped, [], `${source}: no file is excluded by .dockerignore (${files.length} files)`);
        checked += files.length;
      }
    }
  }
  t.ok(checked > 0, `${checked} files copied`);

  // What the build reads: tsconfig.build.json and what it extends.
  const copied = dockerfile.stages.flatMap(copiesOf).flatMap((c) => (c.from ? [] : c.sources.map((s) => posix.normalize(s).replace(/\/$/, ''))));
  const buildConfig = readYaml('tsconfig.build.json');
  t.ok(copied.includes('tsconfig.build.json'), 'tsconfig.build.json is copied');
  if (buildConfig.extends) t.ok(copied.includes(posix.normalize(buildConfig.extends)), `${buildConfig.extends} (extended) is copied`);
  for (const dir of buildConfig.include ?? []) t.ok(copied.includes(dir), `${dir} (compiled) is copied`);
  for (const file of ['package.json', 'package-lock.json', 'config']) t.ok(copied.includes(file), `${file} is copied`);

  for (const path of ['node_modules', 'dist', '.git', '.env', 'test', '.tap']) t.ok(ignored(path), `${path} stays out of the build context`);
});

t.test('runs as a non-root user', async (t) => {
  const users = final.instructions.filter((i) => i.keyword === 'USER');
  t.ok(users.length > 0, 'USER in the runtime stage');
  const user = users.at(-1)!.args.split(':')[0];
  t.notOk(['root', '0'].includes(user), `user ${user} is not root`);
  const cmdIndex = final.instructions.findIndex((i) => i.keyword === 'CMD');
  t.ok(final.instructions.indexOf(users.at(-1)!) < cmdIndex, 'USER comes before CMD');
});

t.test('EXPOSE and HOST agree with config/gateway.yaml; config overridable', async (t) => {
  const exposed = final.instructions.filter((i) => i.keyword === 'EXPOSE').flatMap((i) => i.args.split(/\s+/)).map((p) => Number(p.replace(/\/tcp$/, '')));
  t.same(exposed, [gatewayPort], `EXPOSE ${gatewayPort} (server.port)`);
  const env = envOf(final);
  t.equal(env.HOST, '0.0.0.0', 'ENV HOST=0.0.0.0 (the gateway binds 127.0.0.1 by default)');
  t.notOk(env.PORT, 'no PORT in the image: server.port decides');
  t.ok(env.TOOLGATE_CONFIG, 'TOOLGATE_CONFIG names the config file');
  const configCopy = copiesOf(final).find((c) => c.sources.includes('config') || c.sources.includes('config/'));
  t.ok(configCopy, 'config/ is copied into the image');
  const configDir = posix.resolve('/app', configCopy!.dest);
  t.ok(env.TOOLGATE_CONFIG.startsWith(`${configDir}/`), `${env.TOOLGATE_CONFIG} is in the copied config dir ${configDir} (mount over it to override)`);
  t.ok(exists(posix.join('config', posix.relative(configDir, env.TOOLGATE_CONFIG))), 'and the shipped file exists');
});

t.test('HEALTHCHECK on /healthz without curl', async (t) => {
  const healthchecks = final.instructions.filter((i) => i.keyword === 'HEALTHCHECK');
  t.equal(healthchecks.length, 1, 'one HEALTHCHECK');
  const check = healthchecks[0]?.args ?? '';
  t.match(check, /\bCMD\b/);
  t.match(check, /\/healthz/, 'probes /healthz');
  t.match(check, new RegExp(`\\b${gatewayPort}\\b`), `on port ${gatewayPort}`);
  t.match(check, /node -e .*fetch\(/, 'with node and fetch');
  t.notMatch(check, /\bcurl\b|\bwget\b/, 'no curl/wget (not in slim images)');
});

t.test('CMD is the npm start entry', async (t) => {
  const cmds = final.instructions.filter((i) => i.keyword === 'CMD');
  t.equal(cmds.length, 1, 'one CMD');
  t.notOk(final.instructions.some((i) => i.keyword === 'ENTRYPOINT'), 'no ENTRYPOINT wrapping it');
  t.match(cmds[0].args.trim(), /^\[/, 'exec form (the process gets SIGTERM)');
  const cmd = commandOf(cmds[0].args);
  const start = String(pkg.scripts.start).trim().split(/\s+/);
  t.ok(
    JSON.stringify(cmd) === JSON.stringify(['npm', 'start']) || JSON.stringify(cmd) === JSON.stringify(start),
    `CMD ${JSON.stringify(cmd)} is npm start or package.json's start script (${pkg.scripts.start})`,
  );
  // dist/main.js is what the build produces from src/main.ts.
  const buildConfig = readYaml('tsconfig.build.json');
  t.equal(buildConfig.compilerOptions.outDir, 'dist');
  t.ok(exists(`${buildConfig.compilerOptions.rootDir}/main.ts`), 'src/main.ts is the entry compiled to dist/main.js');
  t.match(pkg.scripts.start, /dist\/main\.js/);
});
