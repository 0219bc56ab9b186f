// Run by agents.test.ts under Node 22 (`node --import tsx agents-run.mts <baseURL> <cases JSON>`):
// @openai/agents tool loops over the Responses API against toolgate. Prints one JSON line.
// Each case: {model, mode}, mode "json" | "stream" | "previous" (a second turn continued with previousResponseId).
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';

const [baseURL, casesJson] = process.argv.slice(2);
const cases = JSON.parse(casesJson) as Array<{ model: string; mode: string }>;
setTracingDisabled(true);
const runner = new Runner({ modelProvider: new OpenAIProvider({ baseURL, apiKey: 'sk-test', useResponses: true }), tracingDisabled: true });

async function runCase(model: string, mode: string): Promise<Record<string, unknown>> {
  const calls: string[] = [];
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return JSON.stringify({ city, temperature_c: 21, sky: 'clear' });
    },
  });
  const agent = new Agent({ name: 'Weather', instructions: 'Use get_weather, then answer.', model, tools: [getWeather] });
  try {
    let result;
    if (mode === 'stream') {
      result = await runner.run(agent, 'What is the weather in Paris?', { stream: true });
      for await (const _event of result) {
        // drain
      }
      await result.completed;
    } else {
      result = await runner.run(agent, 'What is the weather in Paris?');
    }
    const out: Record<string, unknown> = { model, mode, final: result.finalOutput, calls, lastResponseId: result.lastResponseId };
    if (mode === 'previous') {
      const next = await runner.run(agent, 'And in Tokyo?', { previousResponseId: result.lastResponseId });
      out.second = next.finalOutput;
    }
    return out;
  } catch (error) {
    return { model, mode, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

// One process for every case: Node 22 + tsx + the SDK take seconds to start.
const results = await Promise.all(cases.map(({ model, mode }) => runCase(model, mode)));
console.log(JSON.stringify(results));
