/**
 * Every call a platform stand-in received, with waiters for calls still to come.
 *
 * @example
 * ```ts
 * import { type CallLog, createCallLog } from '@parley/testing/loopback';
 *
 * const log: CallLog<{ method: string; text: string }> = createCallLog((method) => new Error(`closed before ${method}`));
 * console.log(log.callsOf('sendMessage').length); // 0
 * ```
 */
export interface CallLog<TCall extends { readonly method: string }> {
  /** Records a call and settles the waiters it satisfies. */
  record(call: TCall): void;
  /** The calls of one method, oldest first. */
  callsOf(method: string): TCall[];
  /**
   * The `count`-th call of `method`, once made. When `closed` is true and it was not made, rejects at
   * once with the log's closed error.
   */
  waitFor(method: string, count: number, closed: boolean): Promise<TCall>;
  /** Rejects every waiter left with the log's closed error (the stand-in closed). */
  rejectWaiters(): void;
}

interface Waiter<TCall> {
  readonly method: string;
  readonly count: number;
  resolve(call: TCall): void;
  reject(error: Error): void;
}

/**
 * Creates a {@link CallLog}: the record of a stand-in's calls by method, which its `calls` and
 * `waitFor` read. `closedError(method)` is the error a waiter gets when the stand-in closes before
 * the bot made the call it waits for (the adapter's own error class, code `closed`).
 *
 * @example
 * ```ts
 * import { createCallLog } from '@parley/testing/loopback';
 *
 * const log = createCallLog<{ method: string; text: string }>((method) => new Error(`closed before ${method}`));
 * const second = log.waitFor('sendMessage', 2, false);
 * log.record({ method: 'sendMessage', text: 'one' });
 * log.record({ method: 'sendMessage', text: 'two' });
 * console.log((await second).text); // two
 * log.rejectWaiters();
 * await log.waitFor('deleteMessage', 1, true).catch((error: Error) => console.log(error.message)); // closed before deleteMessage
 * ```
 */
export function createCallLog<TCall extends { readonly method: string }>(
  closedError: (method: string) => Error,
): CallLog<TCall> {
  const calls: TCall[] = [];
  const waiters: Waiter<TCall>[] = [];
  const callsOf = (method: string): TCall[] => calls.filter((call) => call.method === method);
  return {
    record(call) {
      calls.push(call);
      for (const waiter of [...waiters]) {
        const seen = callsOf(waiter.method);
        if (waiter.method !== call.method || seen.length < waiter.count) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(seen[waiter.count - 1] as TCall); // at least `count` calls were seen
      }
    },
    callsOf,
    waitFor(method, count, closed) {
      const seen = callsOf(method);
      if (seen.length >= count) return Promise.resolve(seen[count - 1] as TCall); // checked just above
      if (closed) return Promise.reject(closedError(method));
      return new Promise((resolve, reject) => waiters.push({ method, count, resolve, reject }));
    },
    rejectWaiters() {
      for (const waiter of waiters.splice(0)) waiter.reject(closedError(waiter.method));
    },
  };
}
