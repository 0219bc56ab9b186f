import { existsSync } from 'node:fs';
import t from 'tap';
import { chromium, type Browser } from 'playwright-core';
import { configFor, startGateway } from '../helpers/gateway.js';

// The inspector page in a real browser: Debian's Chromium driven by playwright-core. A broken
// history and a text-call answer go through the gateway; the page lists both, opens each, and
// shows the repair's before/after and the extracted call. New requests appear without a reload;
// filters live in the URL. Skipped, with a note, where Chromium is not installed (CI installs it).
// TOOLGATE_SCREENSHOT=<path> also saves a screenshot (docs/images/inspector.png is made so).

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TOOLS = [{ type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

if (!existsSync(CHROMIUM)) {
  console.log(`# inspector page test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  t.pass('skipped: no Chromium');
} else {
  t.test('the page finds both requests and shows the repair diff and the extracted call', async (t) => {
    const gw = await startGateway({ yaml: configFor({}, 'inspector:\n  enabled: true\n  captureContent: true\n'), logLevel: 'warn' });
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    t.teardown(async () => {
      await browser.close();
      await gw.close();
    });
    const send = async (body: Record<string, unknown>): Promise<string> => {
      const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await response.text();
      return response.headers.get('x-request-id') ?? '';
    };
    // Older traffic, so the page works at 1,000 records (it shows the newest 200, pages older ones on demand).
    for (let batch = 0; batch < 100; batch++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => send({ model: 'simulator/weather', messages: [{ role: 'user', content: `hello ${batch * 10 + i}` }] })));
    }
    const repaired = await send({
      model: 'simulator/weather',
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: '{"temperature_c":21}' },
      ],
    });
    const textCall = await send({ model: 'simulator/weather:hermes', tools: TOOLS, messages: [{ role: 'user', content: 'Weather in Tokyo?' }] });

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(`${gw.url}/inspector`);

    await page.locator(`tr[data-id="${repaired}"]`).waitFor();
    t.equal(await page.locator('#rows tr').count(), 200, 'the newest 200 of 1,002 records');
    t.ok(await page.locator('#more').isVisible(), 'older ones a click away');

    // The repaired request: its finding and the before/after of the tool message.
    await page.locator(`tr[data-id="${repaired}"]`).click();
    await page.locator('#detail .diff').first().waitFor();
    t.match(await page.locator('#detail table.findings').innerText(), /missing_tool_call_id\s+messages\[2\]/);
    const before = await page.locator('#detail .diff .before pre').innerText();
    const added = await page.locator('#detail .diff .after pre .ins').allInnerTexts();
    t.notMatch(before, /tool_call_id/, 'before: the tool message had no id');
    t.ok(added.some((line) => line.includes('"tool_call_id": "call_paris"')), 'after: the id the repair gave it, marked as added');
    t.match(page.url(), new RegExp(`[?&]id=${repaired}`), 'the open record is in the URL');
    if (process.env.TOOLGATE_SCREENSHOT) await page.screenshot({ path: process.env.TOOLGATE_SCREENSHOT });

    // The text-call answer: format, raw span → call.
    await page.locator(`tr[data-id="${textCall}"]`).click();
    await page.locator('#detail .textcall').waitFor();
    t.match(await page.locator('#detail h3', { hasText: 'read from text' }).innerText(), /format hermes/);
    t.match(await page.locator('#detail .textcall pre.raw').innerText(), /<tool_call>[\s\S]*"get_weather"[\s\S]*Tokyo[\s\S]*<\/tool_call>/);
    t.match(await page.locator('#detail .textcall pre.calls').innerText(), /get_weather\(city\)\s*\{"city":\s*"Tokyo"\}/);
    t.match(await page.locator('#detail .attempts').innerText(), /simulator\/weather:hermes #1[\s\S]*success/);

    // Live: a new request shows up without a reload.
    const later = await send({ model: 'simulator/weather:hermes', tools: TOOLS, messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
    await page.locator(`tr[data-id="${later}"]`).waitFor();
    t.equal(await page.locator('#rows tr').first().getAttribute('data-id'), later, 'on top');

    // Filters in the URL: a shared link opens filtered.
    await page.goto(`${gw.url}/inspector?text-calls=true`);
    await page.locator(`tr[data-id="${textCall}"]`).waitFor();
    t.equal(await page.locator('#rows tr').count(), 2, 'only the two text-call requests');
    t.equal(await page.locator('select[name="text-calls"]').inputValue(), 'true');
    await page.locator('select[name="has-repairs"]').selectOption('true');
    await page.locator(`tr[data-id="${repaired}"]`).waitFor({ state: 'detached' }).catch(() => undefined);
    await page.waitForFunction("document.querySelectorAll('#rows tr').length === 0");
    t.match(page.url(), /text-calls=true&has-repairs=true|has-repairs=true.*text-calls=true/, 'a changed filter goes into the URL');
    t.same(failures, [], 'no script errors (CSP included)');
  });
}
