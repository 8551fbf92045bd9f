/** An abort controller made only when its signal is read: most attempts never look at it. */
export interface LazyAbort {
  /** The attempt's signal, aborted already when `abort` ran before it was read. */
  readonly signal: AbortSignal;
  /** Aborts the signal with `reason` (once; later calls do nothing). */
  abort(reason: unknown): void;
}

/**
 * @internal A {@link LazyAbort}: an `AbortController` costs an allocation and a native call per
 * attempt. A class, so making one allocates one object and no closures.
 */
class LazyAbortController implements LazyAbort {
  private controller: AbortController | undefined = undefined;
  private aborted = false;
  private why: unknown = undefined;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.why = reason;
    this.controller?.abort(reason);
  }
}

/** @internal A {@link LazyAbort}. */
export function lazyAbort(): LazyAbort {
  return new LazyAbortController();
}
