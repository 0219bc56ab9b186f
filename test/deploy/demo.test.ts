import { spawn } from 'node:child_process';
import t from 'tap';
import { root } from './helpers.js';

// `npm run demo` on a fresh clone: runs offline on the simulator, exits 0, and shows the three
// scenarios — a native call, a text-written call made real, a broken history repaired.

t.test('the demo runs the three tool loops and exits 0', async (t) => {
  const started = Date.now();
  const child = spawn('npx', ['tsx', 'scripts/demo.ts'], {
    cwd: root,
    // No provider keys: the demo must not need (or read) any.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const seconds = (Date.now() - started) / 1000;
  t.comment(`demo took ${seconds.toFixed(1)}s (npx + tsx included)`);

  t.equal(code, 0, `exits 0${code === 0 ? '' : `\n${stdout}\n${stderr}`}`);
  t.ok(seconds < 60, 'finishes well within the test timeout (about 3-5 s on a quiet machine; slower while other tests run)');
  t.notOk(stdout.includes('\u001b['), 'no colour codes when not on a terminal');

  const sections = stdout.split(/\n(?=\d\. )/);
  t.equal(sections.length, 4, 'a header and three scenarios');
  const [, native, text, repair] = sections;

  t.match(native, /^1\. Native tool call\s+model simulator\/weather\n/);
  t.match(native, /x-toolgate-tool-mode: native/);
  t.match(native, /get_weather\(\{"city":"Paris"\}\)/);
  t.match(native, /toolgate_tool_responses_total\{provider="simulator",model="simulator\/weather",mode="native"\} \+1/);

  t.match(text, /^2\. .*model simulator\/weather:hermes\n/);
  t.match(text, /x-toolgate-tool-mode: text/);
  t.match(text, /get_weather\(\{"city":"Tokyo"\}\)/);
  t.match(text, /toolgate_tool_responses_total\{provider="simulator",model="simulator\/weather:hermes",mode="text"\} \+1/);

  t.match(repair, /^3\. Broken history repaired/);
  t.match(repair, /client\s+sends back \[\{"role":"assistant","content":""\},\{"role":"tool","content"/, 'the broken history sent');
  t.match(repair, /x-toolgate-repairs: [^\n]*restored_tool_calls=1/, 'the x-toolgate-repairs header');
  t.match(repair, /toolgate_repairs_total\{kind="restored_tool_calls"\} \+1/, 'the repair metric moved');
  t.match(repair, /assistant\s+"Here is what the tools returned: .*Berlin.*Madrid/, 'the repaired history reached a final answer');

  for (const section of [native, text, repair]) {
    t.match(section, /toolgate_llm_calls_total\{[^}]*outcome="success"\} \+1/, 'LLM calls counted');
    t.match(section, /toolgate_tasks_ended_total\{reason="final"\} \+1/, 'the task ended');
  }
  t.match(stdout, /\ndone\s+3 tool loops, 6 LLM calls/);
  t.notMatch(stderr, /Error|FSTDEP/, `nothing alarming on stderr: ${stderr}`);
});
