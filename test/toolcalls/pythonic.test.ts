import t from 'tap';
import { parseWithDetails } from '../../src/toolcalls/parse.js';
import { ToolCallStreamExtractor } from '../../src/toolcalls/stream-extractor.js';
import { parseContext } from './helpers.js';

// Pythonic call lists (issue 15 decisions): after prose they count when they close the answer
// and stand at a line start or after a colon; a call whose arguments cannot be read is left out
// and counted, the good ones stay calls.

const ctx = parseContext();

function calls(text: string): string[] {
  return parseWithDetails(text, ctx).result?.calls.map((call) => `${call.name} ${call.arguments}`) ?? [];
}

function streamed(text: string) {
  const extractor = new ToolCallStreamExtractor(ctx);
  const events = [];
  for (let at = 0, k = 0; at < text.length; k++) {
    const size = 1 + (k % 4);
    events.push(...extractor.feed(text.slice(at, at + size)));
    at += size;
  }
  events.push(...extractor.end());
  return { events, malformed: extractor.malformedCalls };
}

t.test('a list after prose counts when it closes the answer after a colon or at a line start', async (t) => {
  t.same(calls("Here's the call: [get_weather(city='Paris')]"), ['get_weather {"city":"Paris"}']);
  t.equal(parseWithDetails("Here's the call: [get_weather(city='Paris')]", ctx).result?.content, "Here's the call: ");
  t.same(calls("Let me check.\n[get_weather(city='Paris'), get_time()]\n"), ['get_weather {"city":"Paris"}', 'get_time {}']);
  const { events } = streamed("Here's the call: [get_weather(city='Paris')]");
  t.same(events.filter((e) => e.type === 'call').length, 1, 'streamed');
});

t.test('a list that starts a sentence and closes the answer is a call', async (t) => {
  for (const text of ["Let me check. [get_weather(city='Oslo')]", "Sure! [get_weather(city='Oslo')]\n", "Which city? Oslo? [get_weather(city='Oslo')]"]) {
    t.same(calls(text), ['get_weather {"city":"Oslo"}'], JSON.stringify(text));
    t.equal(streamed(text).events.filter((e) => e.type === 'call').length, 1, `${JSON.stringify(text)}: streamed`);
  }
  t.equal(parseWithDetails("Let me check. [get_weather(city='Oslo')]", ctx).result?.content, 'Let me check. ');
  // Not sure: mid-sentence, more prose after, an undeclared name, a list that does not parse, an example.
  t.same(calls("I would run [get_weather(city='Oslo')]"), []);
  t.same(calls("Let me check. [get_weather(city='Oslo')] Then I answer."), []);
  t.same(calls("Let me check. [launch_rockets(count=3)]"), []);
  t.same(calls("Let me check. [get_weather(city='Oslo') or not]"), []);
  t.same(calls("See the docs. [get_weather(city=Oslo)]"), []);
  t.same(calls("For example. [get_weather(city='Oslo')]"), []);
  t.same(calls('Version 2.[get_weather(city="Oslo")]'), [], 'no space after the full stop');
});

t.test('a list in the middle of prose, or followed by more text, stays content', async (t) => {
  t.same(calls("You could call [get_weather(city='Paris')] yourself."), []);
  t.same(calls("Syntax: [get_weather(city='Paris')]\nThat is how it looks."), []);
  t.same(calls("For example [get_weather(city='Paris')]"), [], 'no colon, not at a line start');
});

t.test('a malformed call in a list is left out and counted; the good calls stay', async (t) => {
  const text = "[get_weather(city='Paris'), get_time(zone=), get_weather(city='Rome')]";
  const outcome = parseWithDetails(text, ctx);
  t.same(outcome.result?.calls.map((call) => call.arguments), ['{"city":"Paris"}', '{"city":"Rome"}']);
  t.equal(outcome.malformedCalls, 1);
  t.equal(outcome.result?.content, null);
  const got = streamed(text);
  t.equal(got.events.filter((e) => e.type === 'call').length, 2, 'streamed');
  t.equal(got.malformed, 1);
  t.same(calls('[get_time(zone=), get_time(=)]'), [], 'nothing readable: stays content');
  t.same(calls("[see (note), get_weather(city='Paris')]"), [], 'a non-call in the list: not a call list at all');
});
