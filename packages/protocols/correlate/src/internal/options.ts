import { assertTimeoutMs, type Clock, systemClock } from '@parley/core';
import {
  DEFAULT_HUMAN_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_REQUESTS,
  DEFAULT_MAX_SETTLED,
  DEFAULT_MAX_TOTAL_MS,
  DEFAULT_RETAIN_SETTLED_MS,
  DEFAULT_TIMEOUT_MS,
} from '../defaults.js';
import { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { CorrelatorOptions } from '../types.js';
import { positiveInteger } from './util.js';

/** A correlator's options, checked, with their defaults filled in. */
export interface CheckedOptions {
  readonly self: string;
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly humanTimeoutMs: number;
  readonly maxTotalMs: number;
  readonly maxPending: number;
  readonly retainMs: number;
  readonly maxSettled: number;
  readonly protocols: Map<string, Protocol>;
}

/**
 * Checks a correlator's options: a non-empty `self`, valid deadlines and limits, one protocol per name.
 *
 * @throws CorrelateError `invalid_argument`; CoreError `invalid_timeout` for a bad deadline.
 */
export function checkCorrelatorOptions(options: CorrelatorOptions): CheckedOptions {
  const self = options.self;
  if (typeof self !== 'string' || self.length === 0) {
    throw new CorrelateError('invalid_argument', 'A correlator needs a non-empty "self"', {
      details: { self },
    });
  }
  const clock = options.clock ?? systemClock;
  const timeoutMs = assertTimeoutMs(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const humanTimeoutMs = assertTimeoutMs(
    options.humanTimeoutMs ?? DEFAULT_HUMAN_TIMEOUT_MS,
    'humanTimeoutMs',
  );
  const maxTotalMs = assertTimeoutMs(options.maxTotalMs ?? DEFAULT_MAX_TOTAL_MS, 'maxTotalMs');
  const maxPending = positiveInteger(options.maxPending, DEFAULT_MAX_PENDING_REQUESTS, 'maxPending');
  const retainMs = positiveInteger(options.retainSettledMs, DEFAULT_RETAIN_SETTLED_MS, 'retainSettledMs', 0);
  const maxSettled = positiveInteger(options.maxSettled, DEFAULT_MAX_SETTLED, 'maxSettled', 0);
  const protocols = new Map<string, Protocol>();
  for (const protocol of options.protocols) {
    const known = protocols.get(protocol.name);
    if (known !== undefined && known !== protocol) {
      throw new CorrelateError('invalid_argument', `Two protocols are named "${protocol.name}"`, {
        details: { protocol: protocol.name },
      });
    }
    protocols.set(protocol.name, protocol);
  }
  return { self, clock, timeoutMs, humanTimeoutMs, maxTotalMs, maxPending, retainMs, maxSettled, protocols };
}
