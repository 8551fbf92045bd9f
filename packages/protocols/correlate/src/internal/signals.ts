interface Watch {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

/**
 * One `abort` listener per signal, however many requests and waits share it: each registration
 * adds a callback to the signal's set, and the listener is removed with the last one. A signal
 * reused for many requests never piles up listeners (no MaxListenersExceededWarning).
 */
export interface AbortWatch {
  /** Runs `callback` once when `signal` aborts; returns a function that stops watching. */
  on(signal: AbortSignal, callback: () => void): () => void;
}

export function createAbortWatch(): AbortWatch {
  const watches = new WeakMap<AbortSignal, Watch>();
  return {
    on(signal, callback) {
      let watch = watches.get(signal);
      if (watch === undefined) {
        const callbacks = new Set<() => void>();
        const listener = (): void => {
          watches.delete(signal);
          for (const run of [...callbacks]) run();
          callbacks.clear();
        };
        watch = { callbacks, listener };
        watches.set(signal, watch);
        signal.addEventListener('abort', listener, { once: true });
      }
      const own = watch;
      // A wrapper per registration: the same function registered twice is two registrations.
      const entry = (): void => callback();
      own.callbacks.add(entry);
      return () => {
        if (!own.callbacks.delete(entry) || own.callbacks.size > 0) return;
        if (watches.get(signal) === own) watches.delete(signal);
        signal.removeEventListener('abort', own.listener);
      };
    },
  };
}
