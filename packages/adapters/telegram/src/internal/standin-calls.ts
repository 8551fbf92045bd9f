import { type CallLog, createCallLog } from '@parley/testing/loopback';
import { TelegramAdapterError } from '../errors.js';
import type { TelegramStandInCall } from '../standin-types.js';

/** Every call the stand-in received, and the tests waiting for a call. */
export type StandInCallLog = CallLog<TelegramStandInCall>;

/** A log of the stand-in's calls, with waiters for calls to come. */
export function createStandInCallLog(): StandInCallLog {
  return createCallLog<TelegramStandInCall>(closedError);
}

function closedError(method: string): TelegramAdapterError {
  return new TelegramAdapterError('closed', `The Telegram stand-in closed before the bot called ${method}`, {
    details: { method },
  });
}
