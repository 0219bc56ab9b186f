// A circuit breaker per provider (per gateway instance). Closed: calls flow, consecutive
// failures are counted. At `failureThreshold` it opens: calls are refused at once (the request
// goes to its fallbacks or gets a 503) for `cooldownMs`. Then half-open: exactly one trial call
// goes out; its success closes the breaker, its failure opens it for another cool-down.

export type BreakerState = 'closed' | 'open' | 'half-open';
export type BreakerResult = 'success' | 'failure' | 'neutral';

export interface BreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
  now?: () => number;
  onStateChange?: (state: BreakerState, detail: { provider: string; failures: number }) => void;
}

/** Permission for one call; report its result exactly once (later reports are ignored). */
export interface BreakerPermit {
  report(result: BreakerResult): void;
}

export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private trialOut = false;
  private trialStartedAt = 0;
  private trialId = 0;
  private readonly now: () => number;

  constructor(
    readonly provider: string,
    private readonly options: BreakerOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get state(): BreakerState {
    if (this.current === 'open' && this.cooledDown()) return 'half-open';
    return this.current;
  }

  /** Whether a call could go out now (does not take the half-open trial). */
  canAttempt(): boolean {
    const state = this.state;
    return state === 'closed' || (state === 'half-open' && !this.trialBusy());
  }

  /** Seconds until the breaker lets a trial call through (≥ 1). */
  retryAfterSeconds(): number {
    const left = this.openedAt + this.options.cooldownMs - this.now();
    return Math.max(1, Math.ceil(left / 1000));
  }

  acquire(): BreakerPermit | undefined {
    if (this.current === 'open' && this.cooledDown()) this.transition('half-open');
    if (this.current === 'open') return undefined;
    if (this.current === 'half-open') {
      if (this.trialBusy()) return undefined;
      this.trialOut = true;
      this.trialStartedAt = this.now();
      return this.permit(++this.trialId);
    }
    return this.permit(0);
  }

  /** `trial` is the half-open trial's id (0 for an ordinary call); only the current trial clears the flag. */
  private permit(trial: number): BreakerPermit {
    return new Permit(trial, this.reported);
  }

  // One function per breaker, not a closure per permit: a stream holds its permits to its end.
  private readonly reported = (result: BreakerResult, trial: number): void => {
    const current = trial !== 0 && trial === this.trialId;
    if (current) this.trialOut = false;
    this.record(result, current);
  };

  private record(result: BreakerResult, trial: boolean): void {
    if (result === 'neutral') return;
    if (result === 'success') {
      this.failures = 0;
      if (this.current !== 'closed') this.transition('closed');
      return;
    }
    if (this.current === 'open') return; // a call that started before the breaker opened
    if (this.current === 'half-open') {
      if (trial) this.open();
      return;
    }
    this.failures += 1;
    if (this.failures >= this.options.failureThreshold) this.open();
  }

  /** A trial whose result never came (a stream nobody read) stops blocking after one cool-down. */
  private trialBusy(): boolean {
    return this.trialOut && this.now() - this.trialStartedAt < this.options.cooldownMs;
  }

  private open(): void {
    this.openedAt = this.now();
    this.transition('open');
  }

  private cooledDown(): boolean {
    return this.now() - this.openedAt >= this.options.cooldownMs;
  }

  private transition(state: BreakerState): void {
    this.current = state;
    this.options.onStateChange?.(state, { provider: this.provider, failures: this.failures });
  }
}

/** A permit's state: reported once (later reports are ignored), to its breaker's `reported`. */
class Permit implements BreakerPermit {
  private done = false;

  constructor(
    private readonly trial: number,
    private readonly reported: (result: BreakerResult, trial: number) => void,
  ) {}

  report(result: BreakerResult): void {
    if (this.done) return;
    this.done = true;
    this.reported(result, this.trial);
  }
}
