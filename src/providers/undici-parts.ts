import { Pool, errors, util } from 'undici';

// The parts of undici the gateway runs: its Pool, its header parser and its error classes (answers
// are read by the gateway's own dispatcher handlers, answer-text.ts and answer-stream.ts, not
// undici's request API). Taken from the package's public exports only: its files can move in any
// release.

export { Pool };
export const undiciErrors = errors;
/** The package's `util.parseHeaders`: raw header pairs to undici's headers object. */
export const parseHeaders = util.parseHeaders;
