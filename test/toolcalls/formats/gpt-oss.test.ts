import t from 'tap';
import { gptOssFormat } from '../../../src/toolcalls/formats/gpt-oss.js';
import { parseContext } from '../helpers.js';
import { parseWithDetails } from '../../../src/toolcalls/parse.js';
import { type FormatCase, checkCases, checkLinearGrowth, checkSplitReasoning } from './xml-harness.js';

// gpt-oss harmony messages as the model writes them after the `<|start|>assistant` prompt prefix
// (openai-harmony format guide); <|call|> is a stop token and is often missing from the text.
const ctx = parseContext();
const ANALYSIS = '<|channel|>analysis<|message|>User asks for the weather in Tokyo. We should call get_weather.<|end|>';

const CASES: FormatCase[] = [
  {
    title: 'analysis, then a call with the recipient in the channel header',
    text: `${ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Tokyo","days":2}<|call|>`,
    calls: [{ name: 'get_weather', args: { city: 'Tokyo', days: 2 } }],
  },
  {
    title: 'a preamble on the commentary channel is content without its markers',
    text: '<|channel|>commentary<|message|>Let me look that up.<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"zone":"JST"}<|call|>',
    calls: [{ name: 'get_time', args: { zone: 'JST' } }],
    content: 'Let me look that up.',
  },
  {
    title: 'recipient in the role header, no constrain token, no <|call|>',
    text: '<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{"zone": "UTC"}',
    calls: [{ name: 'get_time', args: { zone: 'UTC' } }],
  },
  {
    title: 'two calls in a row',
    text: '<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo","metric":true}<|call|>',
    calls: [
      { name: 'get_time', args: {} },
      { name: 'get_weather', args: { city: 'Oslo', metric: true } },
    ],
  },
  { title: 'a call to an undeclared function stays content', text: '<|channel|>commentary to=functions.transfer_funds <|constrain|>json<|message|>{"amount": 5}<|call|>', calls: null },
  { title: 'a built-in tool is not a declared function', text: '<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"query": "weather"}<|call|>', calls: null },
  { title: 'arguments cut off stay content', text: '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Pa', calls: null },
  { title: 'prose that mentions the tokens', text: 'gpt-oss writes <|channel|>commentary to=functions.x before <|message|> and the JSON.', calls: null },
];

t.test('gpt-oss harmony calls', async (t) => checkCases(t, gptOssFormat, CASES, ctx));

t.test('analysis is reasoning, final is content', async (t) => {
  const answer = `${ANALYSIS}<|start|>assistant<|channel|>final<|message|>It is 18°C and sunny in Tokyo.<|return|>`;
  // Default mode (reasoning stays in content as written): the analysis channel was never content,
  // so it is reasoning in every mode but `drop`; the final message loses its markers.
  const whole = parseWithDetails(answer, ctx);
  t.same([whole.content, whole.reasoning], ['It is 18°C and sunny in Tokyo.', 'User asks for the weather in Tokyo. We should call get_weather.']);
  const dropped = parseWithDetails(answer, ctx, { reasoning: 'drop' });
  t.same([dropped.content, dropped.reasoning], ['It is 18°C and sunny in Tokyo.', ''], 'drop removes it');
  const thinkFirst = parseWithDetails(`<think>hmm</think>${answer}`, ctx);
  t.equal(thinkFirst.content, '<think>hmm</think>It is 18°C and sunny in Tokyo.', 'other reasoning in the text still stays as written');
  checkSplitReasoning(t, 'final answer', answer, ctx, { calls: [], content: 'It is 18°C and sunny in Tokyo.', reasoning: 'User asks for the weather in Tokyo. We should call get_weather.' });
  checkSplitReasoning(t, 'call after analysis', `${ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Tokyo"}<|call|>`, ctx, {
    calls: [{ name: 'get_weather', args: { city: 'Tokyo' } }],
    content: null,
    reasoning: 'User asks for the weather in Tokyo. We should call get_weather.',
  });
  checkSplitReasoning(t, 'final without <|return|>', '<|channel|>final<|message|>Done.', ctx, { calls: [], content: 'Done.', reasoning: '' });
});

t.test('a repeated unterminated message costs linear time', async (t) => {
  checkLinearGrowth(t, '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "', ctx);
});
