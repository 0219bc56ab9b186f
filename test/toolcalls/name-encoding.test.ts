import t from 'tap';
import { GEMINI_TOOL_NAME_RULE, OPENAI_TOOL_NAME_RULE, createNameCodec, isValidName } from '../../src/toolcalls/name-encoding.js';

const long = 'a_really_long_tool_name_that_goes_on_and_on_past_the_sixty_four_char_limit_x';
const names = ['get_weather', 'mcp/server:search.docs', 'mcp/server:search_docs', long, `${long}_2`, '9lives', 'dot.name', 'émoji_🌦', 'has space'];

for (const [label, rule] of [['OpenAI', OPENAI_TOOL_NAME_RULE], ['Gemini', GEMINI_TOOL_NAME_RULE]] as const) {
  t.test(`${label} rule`, async (t) => {
    const codec = createNameCodec(names, rule);
    t.ok(codec.changed);
    const encoded = names.map(codec.encode);
    t.equal(new Set(encoded).size, names.length, 'encodings are distinct');
    for (const [i, name] of names.entries()) {
      t.ok(isValidName(encoded[i], rule), `${name} → ${encoded[i]} is valid`);
      t.equal(codec.decode(encoded[i]), name, `${name} round-trips`);
      if (isValidName(name, rule)) t.equal(encoded[i], name, `${name} passes unchanged`);
    }
    t.same(names.map(createNameCodec(names, rule).encode), encoded, 'deterministic');
    t.equal(codec.decode('something_else'), 'something_else', 'unknown names decode to themselves');
  });
}

t.test('readable prefix and short hash', async (t) => {
  const codec = createNameCodec(['mcp/server:search.docs', long], OPENAI_TOOL_NAME_RULE);
  t.match(codec.encode('mcp/server:search.docs'), /^mcp_server_search_docs_[0-9a-f]{8}$/);
  t.equal(codec.encode(long).length, 64);
  t.ok(codec.encode(long).startsWith(long.slice(0, 40)));
  t.equal(createNameCodec(['mcp/server:search.docs'], GEMINI_TOOL_NAME_RULE).encode('mcp/server:search.docs').startsWith('mcp_server:search.docs_'), true, 'Gemini keeps . and :');
});

t.test('valid names only: nothing changes', async (t) => {
  const codec = createNameCodec(['get_weather', 'get-time'], OPENAI_TOOL_NAME_RULE);
  t.equal(codec.changed, false);
  t.equal(codec.encode('get_weather'), 'get_weather');
  t.equal(codec.decode('get-time'), 'get-time');
});
