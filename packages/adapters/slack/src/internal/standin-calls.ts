import { SlackAdapterError } from '../errors.js';
import type { SlackStandInCall } from '../standin-types.js';

/** Every call the stand-in received, and the tests waiting for a call. */
export interface StandInCallLog {
  /** Records a call and settles the waiters it satisfies. */
  record(call: SlackStandInCall): void;
  /** The calls of one method, oldest first. */
  callsOf(method: string): SlackStandInCall[];
  /** The `count`-th call of a method, once made; rejects at once when `closed` and it was not. */
  waitFor(method: string, count: number, closed: boolean): Promise<SlackStandInCall>;
  /** Rejects every waiter left (the stand-in closed). */
  rejectWaiters(): void;
}

interface Waiter {
  method: string;
  count: number;
  resolve(call: SlackStandInCall): void;
  reject(e: Error): void;
}

/** A log of the stand-in's calls, with waiters for calls to come. */
export function createStandInCallLog(): StandInCallLog {
  const calls: SlackStandInCall[] = [];
  const waiters: Waiter[] = [];
  const callsOf = (method: string): SlackStandInCall[] => calls.filter((call) => call.method === method);
  return {
    record(call) {
      calls.push(call);
      for (const waiter of [...waiters]) {
        const seen = callsOf(waiter.method);
        if (waiter.method !== call.method || seen.length < waiter.count) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(seen[waiter.count - 1] as SlackStandInCall);
      }
    },
    callsOf,
    waitFor(method, count, closed) {
      const seen = callsOf(method);
      if (seen.length >= count) return Promise.resolve(seen[count - 1] as SlackStandInCall);
      if (closed) return Promise.reject(closedError(method));
      return new Promise((resolve, reject) => waiters.push({ method, count, resolve, reject }));
    },
    rejectWaiters() {
      for (const waiter of waiters.splice(0)) waiter.reject(closedError(waiter.method));
    },
  };
}

function closedError(method: string): SlackAdapterError {
  return new SlackAdapterError('closed', `The Slack stand-in closed before the app called ${method}`, {
    details: { method },
  });
}
