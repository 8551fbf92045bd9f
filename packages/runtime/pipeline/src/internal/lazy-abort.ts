/** An abort controller made only when its signal is read: most attempts never look at it. */
export interface LazyAbort {
  /** The attempt's signal, aborted already when `abort` ran before it was read. */
  readonly signal: AbortSignal;
  /** Aborts the signal with `reason` (once; later calls do nothing). */
  abort(reason: unknown): void;
}

/** @internal A {@link LazyAbort}: an `AbortController` costs an allocation and a native call per attempt. */
export function lazyAbort(): LazyAbort {
  let controller: AbortController | undefined;
  let aborted = false;
  let why: unknown;
  return {
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        if (aborted) controller.abort(why);
      }
      return controller.signal;
    },
    abort(reason) {
      if (aborted) return;
      aborted = true;
      why = reason;
      controller?.abort(reason);
    },
  };
}
