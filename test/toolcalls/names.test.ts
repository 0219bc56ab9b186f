import t from 'tap';
import { createNameResolver, normalizeToolName, qualifierOf } from '../../src/toolcalls/names.js';

function resolverFor(declared: readonly string[], aliases: Record<string, string> = {}) {
  return createNameResolver(declared, aliases);
}

const declared = ['search_procedure', 'get_weather', 'get_user', 'read_file', 'list_files', 'getCalendarEvents', 'send-email'];
const resolve = resolverFor(declared, { lookup: 'search_procedure', weather_now: 'get_weather', dangling: 'not_declared' });

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
    ['functions.tool_get_weather', 'get_weather'],
  ];
  for (const [called, expected] of cases) t.same(resolve(called), { name: expected, how: 'normalized' }, called);
});

t.test('unrelated names are not mapped', async (t) => {
  for (const called of ['set_user', 'delete_user', 'write_file', 'get_time', 'search', 'procedure', 'weather', 'launch_rockets', 'x', '', 'tool_', 'functions.']) {
    t.equal(resolve(called), null, JSON.stringify(called));
  }
});

t.test('ambiguity is never guessed', async (t) => {
  const twins = resolverFor(['get-item', 'get_item', 'list_items_a', 'list_items_b']);
  t.same(twins('get-item'), { name: 'get-item', how: 'exact' });
  t.equal(twins('GET_ITEM'), null, 'two declared names normalize alike');
});

t.test('resolver is pure and cached', async (t) => {
  t.same(resolve('Tool_Search_Procedure'), resolve('Tool_Search_Procedure'));
  t.same(resolve.declared, declared);
  t.equal(normalizeToolName('functions.tool_Search-Procedure_tool'), 'search_procedure');
});


// A guess by similarity picks the opposite tool for tools that act; only the same name maps.
t.test('no similarity matching: near names and opposites are reported, never guessed', async (t) => {
  const acting = resolverFor(['activate_account', 'subscribe_newsletter', 'deploy_service', 'lock_user_account', 'search_procedure', 'get_weather']);
  for (const called of ['deactivate_account', 'unsubscribe_newsletter', 'undeploy_service', 'unlock_user_account', 'search_procedures', 'serch_procedure', 'get_wether', 'reactivate_account']) {
    t.equal(acting(called), null, called);
  }
  // A declared MCP-namespaced name is found from its bare form too, unless two servers share it.
  const mcp = resolverFor(['mcp__github__create_issue', 'mcp__jira__create_issue', 'mcp__github__list_repos']);
  t.same(mcp('list_repos'), { name: 'mcp__github__list_repos', how: 'normalized' });
  t.equal(mcp('create_issue'), null, 'two servers declare it: ambiguous');
});

// A prefix that names an MCP server or a namespace is part of the name: never aliased across.
t.test('server and namespace prefixes: never across them', async (t) => {
  const tools = resolverFor(['mcp__prod__drop_table', 'mcp__github__create_issue', 'mcp__jira__create_issue', 'read_file', 'billing.refund']);
  for (const called of ['mcp__staging__drop_table', 'MCP__Staging__Drop_Table', 'staging/drop_table', 'staging.drop_table', 'staging:drop_table', 'mcp__gitlab__create_issue', 'mcp__files__read_file', 'MCP__Files__Read_File', 'files/read_file', 'shop.refund', 'mcp__shop__refund']) {
    t.equal(tools(called), null, called);
  }
  t.same(tools('MCP__Prod__Drop_Table'), { name: 'mcp__prod__drop_table', how: 'normalized' }, 'the same server, another spelling');
  t.same(tools('mcp__GitHub__createIssue'), { name: 'mcp__github__create_issue', how: 'normalized' }, 'the server named picks among two');
  t.same(tools('drop_table'), { name: 'mcp__prod__drop_table', how: 'normalized' }, 'a bare name finds the one declared tool it names');
  t.same(tools('functions.mcp__prod__drop_table'), { name: 'mcp__prod__drop_table', how: 'normalized' }, "a model's own wrapper is no server");
  t.same(tools('Billing.Refund'), { name: 'billing.refund', how: 'normalized' });
  t.same(tools('functions.read_file'), { name: 'read_file', how: 'normalized' });
  t.equal(qualifierOf('mcp__prod__drop_table'), 'prod');
  t.equal(qualifierOf('prod/drop_table'), 'prod');
  t.equal(qualifierOf('default_api:get_weather'), '');
  t.equal(qualifierOf('functions.get_weather'), '');
});
