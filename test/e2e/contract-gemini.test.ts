import t, { type Test } from 'tap';
import { answer, startGeminiEmulator, usage } from '../emulators/gemini-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { readChatStream, ROWS, TOOLS } from '../helpers/contract-rows.js';
import type { Reply } from '../emulators/openai-script.js';

// The tool contract against Gemini: where Gemini can be told natively it is (toolConfig.
// functionCallingConfig: ANY, NONE, allowedFunctionNames), and an answer that breaks the
// contract anyway is re-asked like any other upstream's: every row, JSON and SSE, chat and Responses.

type Json = Record<string, any>;
const CORRECTIVE = /^Your last answer broke this request's rules/;
let row = ROWS[0];

function partsOf(reply: Reply): Json[] {
  if ('toolCalls' in reply && reply.toolCalls) return reply.toolCalls.map((call) => ({ functionCall: { name: call.name, args: call.arguments } }));
  return [{ text: 'text' in reply ? reply.text : '' }];
}
function isReask(body: Json): boolean {
  const last = body.contents.at(-1);
  return last?.role === 'user' && last.parts.some((p: Json) => typeof p.text === 'string' && CORRECTIVE.test(p.text));
}

const gemini = await startGeminiEmulator({
  script: ({ body }) => ({ response: answer(partsOf(isReask(body) ? row.good : row.bad), 'STOP', usage(30, 10)) }),
});
const gw = await startGateway({
  yaml: configFor({ gem: { type: 'gemini', baseUrl: gemini.baseUrl, apiKey: gemini.apiKey } }, 'models:\n  agent:\n    provider: gem\n    model: gemini-2.5-flash\n'),
});
t.teardown(async () => {
  await gw.close();
  await gemini.close();
});

/** What Gemini is told natively for each row's fields. */
const NATIVE: Record<string, Json | undefined> = {
  wrong_tool: { mode: 'ANY', allowedFunctionNames: ['get_time'] },
  tool_required: { mode: 'ANY' },
  tool_choice_none: { mode: 'NONE' },
};

const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const parsed = (calls: Array<{ name: string; arguments: string }>) => calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) }));

function checkUpstream(t: Test, before: number): void {
  const sent = gemini.requests.slice(before);
  t.equal(sent.length, 2, 'the answer and exactly one re-ask');
  t.same(sent[0].body.toolConfig?.functionCallingConfig, NATIVE[row.kind], 'told natively where Gemini can be');
  t.same(sent[1].body.toolConfig?.functionCallingConfig, NATIVE[row.kind], 'and again in the re-ask');
  const corrective = sent[1].body.contents.at(-1).parts.map((p: Json) => p.text ?? '').join('');
  t.match(corrective, CORRECTIVE, 'the corrective message is what Gemini received');
  t.match(corrective, row.says);
}

for (const current of ROWS) {
  for (const stream of [false, true]) {
    t.test(`Gemini chat ${stream ? 'SSE' : 'JSON'}: ${current.name}`, async (t) => {
      row = current;
      const before = gemini.requests.length;
      const response = await post('/v1/chat/completions', { model: 'agent', stream, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS, ...current.fields });
      t.equal(response.status, 200);
      if (stream) {
        const read = readChatStream(await response.text());
        t.equal(read.done, 1);
        t.same(parsed(read.calls), current.expectCalls);
      } else {
        const body: any = await response.json();
        t.same(parsed((body.choices[0].message.tool_calls ?? []).map((c: any) => c.function)), current.expectCalls);
        if (current.expectText) t.match(body.choices[0].message.content, current.expectText);
      }
      checkUpstream(t, before);
    });
  }

  t.test(`Gemini Responses JSON: ${current.name}`, async (t) => {
    row = current;
    const before = gemini.requests.length;
    const choice = current.fields.tool_choice as any;
    const response = await post('/v1/responses', {
      model: 'agent',
      input: 'Weather in Paris?',
      tools: TOOLS.map((tool) => ({ type: 'function', name: tool.function.name, parameters: tool.function.parameters })),
      ...current.fields,
      ...(choice?.function ? { tool_choice: { type: 'function', name: choice.function.name } } : {}),
    });
    t.equal(response.status, 200);
    const body: any = await response.json();
    t.same(parsed(body.output.filter((item: any) => item.type === 'function_call')), current.expectCalls);
    checkUpstream(t, before);
  });
}
