import t from 'tap';
import { createNameResolver, editDistance, normalizeToolName } from '../../src/toolcalls/names.js';

const declared = ['search_procedure', 'get_weather', 'get_user', 'read_file', 'list_files', 'getCalendarEvents', 'send-email'];
const resolve = createNameResolver(declared, { lookup: 'search_procedure', weather_now: 'get_weather', dangling: 'not_declared' });

t.test('exact and configured aliases', async (t) => {
  t.same(resolve('get_weather'), { name: 'get_weather', how: 'exact' });
  t.same(resolve('lookup'), { name: 'search_procedure', how: 'alias' });
  t.same(resolve('weather_now'), { name: 'get_weather', how: 'alias' });
  t.equal(resolve('dangling'), null, 'an alias to an undeclared tool is ignored');
});

t.test('the incident: tool_search_procedure → search_procedure', async (t) => {
  t.same(resolve('tool_search_procedure'), { name: 'search_procedure', how: 'normalized' });
});

t.test('normalization: prefixes, affixes, case, separators', async (t) => {
  const cases: Array<[string, string]> = [
    ['functions.get_weather', 'get_weather'],
    ['default_api:get_weather', 'get_weather'],
    ['default_api.get_weather', 'get_weather'],
    ['tools.read_file', 'read_file'],
    ['search_procedure_tool', 'search_procedure'],
    ['GET_WEATHER', 'get_weather'],
    ['getWeather', 'get_weather'],
    ['get-weather', 'get_weather'],
    ['get weather', 'get_weather'],
    ['getweather', 'get_weather'],
    ['get_calendar_events', 'getCalendarEvents'],
    ['send_email', 'send-email'],
  ];
  for (const [called, expected] of cases) t.same(resolve(called), { name: expected, how: 'normalized' }, called);
});

t.test('fuzzy: a typo maps to the unique close name', async (t) => {
  t.same(resolve('search_procedures'), { name: 'search_procedure', how: 'fuzzy' });
  t.same(resolve('serch_procedure'), { name: 'search_procedure', how: 'fuzzy' });
  t.same(resolve('get_wether'), { name: 'get_weather', how: 'fuzzy' });
});

t.test('unrelated names are not mapped', async (t) => {
  for (const called of ['set_user', 'delete_user', 'write_file', 'get_time', 'search', 'procedure', 'weather', 'launch_rockets', 'x', '', 'tool_', 'functions.']) {
    t.equal(resolve(called), null, JSON.stringify(called));
  }
});

t.test('ambiguity is never guessed', async (t) => {
  const twins = createNameResolver(['get-item', 'get_item', 'list_items_a', 'list_items_b']);
  t.same(twins('get-item'), { name: 'get-item', how: 'exact' });
  t.equal(twins('GET_ITEM'), null, 'two declared names normalize alike');
  t.equal(twins('list_items_c'), null, 'two fuzzy candidates');
});

t.test('resolver is pure and cached', async (t) => {
  t.same(resolve('Tool_Search_Procedure'), resolve('Tool_Search_Procedure'));
  t.same(resolve.declared, declared);
  t.equal(normalizeToolName('functions.tool_Search-Procedure_tool'), 'search_procedure');
  t.equal(editDistance('kitten', 'sitting'), 3);
  t.equal(editDistance('abcdef', 'uvwxyz', 2), 3, 'gives up past the limit');
});
