import t from 'tap';
import { MemoryLedger } from '../../src/ledger/memory.js';
import type { LedgerEntry } from '../../src/ledger/types.js';
import { promotedBytes } from '../helpers/heap.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';

// What a lookup parses must die young. A ledger structure that outlives lookups and keeps what they
// parsed (a Map on the ledger cleared per lookup: once its table is in the old generation, clear()
// allocates the next one there and the dead table still holds the entries) makes every hit's
// entry survive scavenges into the old generation: at a request rate, mark-compacts. Counted in
// bytes of the old space across explicit scavenges, no timing.

const ARGUMENT_CHARS = 4000;

const entry = (fp: string, id: string): LedgerEntry => ledgerEntry(fp, [id], { args: JSON.stringify({ text: 'x'.repeat(ARGUMENT_CHARS) }) });

t.test('entries a lookup parsed are not promoted by scavenges once the ledger is in the old generation', async (t) => {
  const ledger = new MemoryLedger();
  await ledger.record(entry('fp1', 'call_a'));
  const query = { callIds: ['call_a'], prefixFingerprints: ['fp1'] };
  for (let i = 0; i < 20; i++) await ledger.lookup(query);
  const lookups = 400;
  const grown = await promotedBytes(async () => {
    const snapshot = await ledger.lookup(query);
    if (snapshot.byPrefix.get('fp1') !== snapshot.byCallId.get('call_a')) t.fail('one entry behind both keys');
  }, lookups / 10);
  // Each hit parses a ~4 KB message: kept by the ledger, 400 lookups would promote ~1.6 MB.
  t.ok(grown < (lookups * ARGUMENT_CHARS) / 4, `old space grew ${grown} B over ${lookups} lookups`);
});
