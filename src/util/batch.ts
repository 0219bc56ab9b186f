// A stream's chunks go on in batches; most steps pass most of them as they are. One way to map a
// batch that copies nothing while nothing changes.

/**
 * Each item through `each`: the batch itself when every item came back unchanged, else a new
 * array without the items `each` held back (undefined) and with the ones it replaced.
 */
export function mapBatch<T>(batch: T[], each: (item: T) => T | undefined): T[] {
  let out: T[] | undefined;
  for (let i = 0; i < batch.length; i++) {
    const item = batch[i];
    const passed = each(item);
    if (passed === item && out === undefined) continue;
    out ??= batch.slice(0, i);
    if (passed !== undefined) out.push(passed);
  }
  return out ?? batch;
}
