// The `kind=n,…` headers (x-toolgate-repairs, x-toolgate-warnings) that several steps add to.

/** Two `kind=n,…` headers as one, counts added. */
export function mergeRepairHeaders(...headers: Array<string | undefined>): string | undefined {
  const counts = new Map<string, number>();
  for (const header of headers) {
    for (const pair of header?.split(',') ?? []) {
      const [kind, count] = pair.split('=');
      if (kind) counts.set(kind, (counts.get(kind) ?? 0) + Number(count ?? 0));
    }
  }
  return countsHeader(counts);
}

/** `kind=n,…` of counts by kind; undefined when there are none. */
export function countsHeader(counts: ReadonlyMap<string, number>): string | undefined {
  return counts.size === 0 ? undefined : [...counts].map(([kind, count]) => `${kind}=${count}`).join(',');
}
