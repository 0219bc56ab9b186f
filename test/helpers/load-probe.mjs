// Module-resolution hook for the lazy-loading tests (runs on Node's loader thread): reports every
// resolved URL containing `data.match` (e.g. '/re2js/') to the test through a MessagePort.
// Resolving the specifier `toolgate-probe:flush` posts a marker, so the test knows every earlier
// report has arrived. Use through test/helpers/module-probe.ts.
let port;
let match;

export function initialize(data) {
  port = data.port;
  match = data.match;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'toolgate-probe:flush') {
    port.postMessage('flush');
    return { url: 'data:text/javascript,export default 1', shortCircuit: true };
  }
  const result = await nextResolve(specifier, context);
  if (result.url.includes(match)) port.postMessage(result.url);
  return result;
}
