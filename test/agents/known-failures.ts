// Runs that fail today for a known reason, each naming its issue. The suite passes when exactly
// these fail, each for its reason (`sign`: text one of the run's problems must contain; a known run
// failing for another reason is an unexpected failure). One that starts passing fails the suite until
// it is taken off this list. Keys: <agent>/<route>/<task>; `*` stands for any route or task.

export interface KnownFailure {
  issue: string;
  sign: string;
}

export const KNOWN_FAILURES: Readonly<Record<string, KnownFailure>> = {
};

export function knownFailure(run: string): KnownFailure | undefined {
  const [agent, route, task] = run.split('/');
  for (const [key, known] of Object.entries(KNOWN_FAILURES)) {
    const [a, r, t] = key.split('/');
    if (a === agent && (r === '*' || r === route) && (t === '*' || t === task)) return known;
  }
  return undefined;
}
