import t from 'tap';
import { echoes, saysItself } from '../src/request-echo.js';

// A phrase of an upstream's 400 is the client's own text only when the client's text holds it with
// the same words around it; an everyday phrase among other words is the upstream's.

const at = (message: string, phrase: string): [number, number] => {
  const start = message.indexOf(phrase);
  return [start, start + phrase.length];
};

t.test('quoted back with its surroundings: an echo', async (t) => {
  const message = "Invalid value for 'messages[0].content': 'Note: this model does not support tools, ok?' is too long.";
  t.ok(echoes(message, ...at(message, 'does not support tools'), { messages: [{ content: 'Note: this model does not support tools, ok?' }] }));
  t.ok(echoes('FUNCTION CALLING IS NOT SUPPORTED', 0, 33, ['function calling is not supported']), 'a short string quoted whole, case aside');
  t.ok(echoes('Missing field', 0, 7, ['say Missing field']), 'the whole message is in the client\'s text');
});

t.test('the same phrase among other words: not an echo', async (t) => {
  const message = 'tool_choice "required" is not supported';
  t.notOk(echoes(message, ...at(message, 'not supported'), { messages: [{ content: 'My card is not supported here.' }] }));
  t.notOk(echoes(message, ...at(message, 'not supported'), { messages: [{ content: 'hello' }] }));
});

t.test('saysItself looks past an echoed match to the next one', async (t) => {
  const message = "Bad request: 'say: it is not supported'. parallel_tool_calls is not supported with this model";
  t.ok(saysItself(message, [/not supported/i], { content: 'say: it is not supported' }));
  t.notOk(saysItself("Bad request: 'say: it is not supported'", [/not supported/i], { content: 'say: it is not supported' }));
});
