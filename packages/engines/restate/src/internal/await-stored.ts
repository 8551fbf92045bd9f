// The one durable wait of this package: an awakeable registered with an object, woken as a hint
// only, and trusted only once the object's stored state says the thing waited for is final.
import * as restate from '@restatedev/restate-sdk';
import { ParleyRestateError } from '../errors.js';
import type { Watched } from '../watched.js';

/** The code Restate fails an awaited promise with when the invocation is cancelled. */
const CANCELLED = 409;

/** How {@link awaitStored} registers a wait and reads back what is stored. */
export interface StoredWait<T> {
  /** What is waited for, in error messages ("request "r1"", "confirmation "c1""). */
  readonly what: string;
  readonly details: Record<string, string>;
  readonly maxWakeups: number;
  watch(awakeableId: string): Promise<Watched<T>>;
  /** The stored value once final, `undefined` while it is not. */
  read(): Promise<T | undefined>;
}

/**
 * Waits until `wait.read()` gives a final value: registers an awakeable with `watch`, and after
 * every wake-up (a resolve or a reject, by anyone who holds its id) reads the stored value back.
 * Only a cancellation of the waiting invocation ends the wait early.
 */
export async function awaitStored<T>(ctx: restate.Context, wait: StoredWait<T>): Promise<T> {
  for (let wakeups = 0; ; wakeups++) {
    if (wakeups >= wait.maxWakeups) {
      const text = `The wait for ${wait.what} was woken ${wait.maxWakeups} times without it being final`;
      const details = { ...wait.details, maxWakeups: wait.maxWakeups };
      throw terminal(new ParleyRestateError('forged_wakeups', text, { details }));
    }
    const { id, promise } = ctx.awakeable<unknown>();
    const watched = await wait.watch(id);
    if (!watched.ok)
      throw terminal(new ParleyRestateError(watched.code, watched.message, { details: wait.details }));
    if (!watched.watching) return watched.record;
    try {
      await promise; // a hint only: what it carries is not trusted
    } catch (error) {
      // A rejection is a hint too (anyone holding the id may reject it), except a cancellation of this wait.
      if (error instanceof restate.TerminalError && error.code === CANCELLED) throw error;
    }
    const final = await wait.read();
    if (final !== undefined) return final;
  }
}

/** A Restate TerminalError for a Parley error: the invocation fails for good, the Parley error is its cause. */
function terminal(error: ParleyRestateError): restate.TerminalError {
  const failure = new restate.TerminalError(`${error.code}: ${error.message}`);
  Object.defineProperty(failure, 'cause', { value: error });
  return failure;
}
