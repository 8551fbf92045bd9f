import { type CallLog, createCallLog } from '@parley/testing/loopback';
import { SlackAdapterError } from '../errors.js';
import type { SlackStandInCall } from '../standin-types.js';

/** Every call the stand-in received, and the tests waiting for a call. */
export type StandInCallLog = CallLog<SlackStandInCall>;

/** A log of the stand-in's calls, with waiters for calls to come. */
export function createStandInCallLog(): StandInCallLog {
  return createCallLog<SlackStandInCall>(closedError);
}

function closedError(method: string): SlackAdapterError {
  return new SlackAdapterError('closed', `The Slack stand-in closed before the app called ${method}`, {
    details: { method },
  });
}
