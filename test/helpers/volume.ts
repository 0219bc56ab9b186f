// How much of the randomised and growth work a run does. `npm test` runs a quick share, enough to
// catch a regression on most changes; CI (.ci/run) sets TOOLGATE_TEST_VOLUME=full and runs the
// full counts, so every case the suite has ever checked is still checked before a merge.

export const FULL_VOLUME = process.env.TOOLGATE_TEST_VOLUME === 'full';

/** `full` in CI, about a fifth of it (at least `floor`) otherwise. */
export function volume(full: number, floor = 1): number {
  return FULL_VOLUME ? full : Math.max(floor, Math.ceil(full / 5));
}
