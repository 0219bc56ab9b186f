// Answers that contain no call: plain prose, code samples, JSON samples, tool documentation, and
// answers that quote or explain a call in every style models write calls in. Written for these
// tests (shaped like what GPT-4o, Claude and open models answer when asked about tool calling).

const PLAIN = [
  'It is sunny in Paris today, 21°C with a light breeze from the west.',
  'Sure! Here are three ideas for a weekend trip: Ghent, Bruges and Antwerp.',
  'The capital of Norway is Oslo.',
  "I can't check the weather right now, but you can look at a local forecast service.",
  'Done. The file was saved.\n\nAnything else?',
  '1. Preheat the oven.\n2. Mix the flour and sugar.\n3. Bake for 25 minutes.',
  '   Leading spaces and trailing ones   ',
  '日本の天気は晴れです。東京は22度です。',
  'Voilà 🌦 — il fait beau à Paris.',
  '',
];

const CODE = [
  '```python\nimport requests\n\ndef get_weather(city: str) -> dict:\n    return requests.get(f"https://api.example.com/weather?city={city}").json()\n```',
  'Here is a JavaScript version:\n```js\nconst res = await fetch(`/weather?city=${city}`);\nconsole.log(await res.json());\n```',
  '```bash\ncurl -s https://api.example.com/weather?city=Paris | jq .\n```\nThat prints the forecast.',
  '```sql\nSELECT city, temp FROM weather WHERE city = \'Paris\';\n```',
  '```yaml\ntools:\n  - name: get_weather\n    parameters: {city: string}\n```',
  'Call it from Python:\n```python\nclient.chat.completions.create(model="gpt-4o", tools=[{"type": "function", "function": {"name": "get_weather"}}])\n```',
  'In TypeScript: `const call = { name: "get_weather", arguments: { city: "Paris" } };` and pass it on.',
  '```python\nresult = get_weather(city="Paris")\nprint(result)\n```',
  '```\n[get_weather(city="Paris"), get_time(zone="UTC")]\n```\nThat is a plain list literal in Python.',
  'Use `get_weather(city="Paris")` in your script.',
  '```json\n{"city": "Paris", "temp": 21, "unit": "C"}\n```',
  '```ts\ntype Call = { name: string; arguments: Record<string, unknown> };\n```',
];

const JSON_SAMPLES = [
  'The API returns:\n```json\n{"city": "Paris", "forecast": [{"day": 1, "temp": 21}]}\n```',
  '{"status": "ok", "items": [1, 2, 3]}',
  'Your config should look like {"retries": 3, "timeoutMs": 5000}.',
  'A response from the tool is `{"temp": 21}`; the model then answers in prose.',
  '```json\n[{"id": 1, "name": "Paris"}, {"id": 2, "name": "Oslo"}]\n```',
  'The schema is:\n```json\n{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}\n```',
  '{"name": "Paris", "population": 2102650}',
  'Example payload: {"name": "get_weather", "description": "Weather for a city"}',
];

// Each explains a call (a cue before the block) in one of the styles models write.
const CALL_SHAPES = [
  '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
  '```json\n[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]\n```',
  '{"name": "get_weather", "arguments": {"city": "Paris"}}',
  '{"name": "get_weather", "parameters": {"city": "Paris"}}',
  '[get_weather(city="Paris")]',
  '[get_weather(city="Paris"), get_time(zone="UTC")]',
  '```json\n{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}\n```',
  'functions.get_weather:0 {"city": "Paris"}',
];
const EXPLAINING_FRAMES = [
  (shape: string) => `For example, a call looks like this:\n${shape}`,
  (shape: string) => `Here is an example of the format:\n${shape}\nReplace the city with yours.`,
  (shape: string) => `The syntax is as follows.\n${shape}`,
  (shape: string) => `You could write it like this:\n${shape}`,
  (shape: string) => `A sample call, e.g. for Paris:\n${shape}\nThe model fills in the arguments.`,
  (shape: string) => `This is how you would call the tool:\n${shape}`,
  (shape: string) => `Such as:\n${shape}\n\nand the server parses it.`,
  (shape: string) => `To illustrate, the template below\n${shape}\nis what the model emits.`,
];

// Tool definitions and documentation echoed back.
const DEFINITIONS = [
  '```json\n{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}\n```',
  '{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}',
  '{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}',
  'The tools I have:\n- `get_weather(city)`: the weather for a city\n- `get_time(zone)`: the time in a zone',
  'I can call get_weather with a city, or get_time with a time zone. Which do you need?',
  '| tool | arguments |\n|---|---|\n| get_weather | city |\n| get_time | zone |',
  '[{"type": "function", "function": {"name": "get_time", "description": "Time in a zone", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}}]',
];

// Answers quoting calls in model markers inside code spans or fences (examples, not calls).
const QUOTED_MARKERS = [
  'Hermes models wrap calls like `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`.',
  'Mistral writes:\n```\n[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]\n```',
  'Llama 3.1 uses `<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}`.',
  '```xml\n<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</tool_call>\n```',
  'Kimi K2 emits `<|tool_calls_section_begin|>…<|tool_calls_section_end|>` around its calls.',
  'A harmony message looks like `<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>{"city":"Paris"}<|call|>`.',
  'In the docs the pythonic form `[get_weather(city="Paris")]` is shown for Llama 3.2.',
];

export const NO_CALL_ANSWERS: string[] = [
  ...PLAIN,
  ...CODE,
  ...JSON_SAMPLES,
  ...CALL_SHAPES.flatMap((shape) => EXPLAINING_FRAMES.map((frame) => frame(shape))),
  ...DEFINITIONS,
  ...QUOTED_MARKERS,
];
