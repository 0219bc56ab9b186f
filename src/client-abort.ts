// A request's client-disconnect signal. An AbortController would do, but on Node 20 its AbortSignal
// costs ~3.7 µs to build and an EventTarget listener ~1 µs to add and remove, on every request
// (Node 24: ~0.5 µs in all). What the gateway and undici read of the signal is `aborted`, `reason`
// and 'abort' listeners added and removed (undici: lib/api/api-request.js, `addAbortListener` in
// lib/core/util.js; src/resilience/retry.ts `sleep`), so that is all this object has. An
// AbortSignal has it too: tests and callers may still pass one.

/** The part of AbortSignal the gateway reads (an AbortSignal is one). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  /** Set when aborted: the same DOMException an AbortController's `abort()` gives. */
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Signal and controller in one object, with AbortController's semantics for 'abort' listeners. */
export class ClientAbort implements AbortSignalLike {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> | undefined;

  /** The signal side (this object), so `abort.signal` reads as with an AbortController. */
  get signal(): AbortSignalLike {
    return this;
  }

  /** As EventTarget: a listener added twice runs once; one added after the abort never runs (the event was dispatched). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    const listeners = this.listeners;
    // The first one as a literal: room for one, not the 17 a push into [] makes (held for the
    // request's whole life, a stream's too, and there is usually just undici's).
    if (listeners === undefined) this.listeners = [listener];
    else if (!listeners.includes(listener)) listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.listeners;
    if (!listeners) return;
    const at = listeners.indexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  }

  /** Aborts once: `aborted`, the AbortError reason, then every listener in the order added (each once). */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.listeners;
    if (!listeners) return;
    // Taken from the live list: one a running listener removes is not called (as EventTarget).
    for (let listener = listeners.shift(); listener !== undefined; listener = listeners.shift()) {
      try {
        listener.call(this);
      } catch (error) {
        // As EventTarget: a throwing listener does not stop the others; its error is uncaught.
        process.nextTick(() => {
          throw error;
        });
      }
    }
    this.listeners = undefined;
  }
}
