// Checks of what defineRequests and the open handler are given.
import type { Protocol } from '@parley/correlate';
import { ParleyRestateError } from '../errors.js';
import type { RequestsOptions } from '../requests-types.js';

export function protocolMap(options: RequestsOptions<string>): ReadonlyMap<string, Protocol> {
  if (typeof options.name !== 'string' || options.name.length === 0) {
    throw new ParleyRestateError('invalid_argument', 'name must be a non-empty string');
  }
  if (!Array.isArray(options.protocols) || options.protocols.length === 0) {
    throw new ParleyRestateError('invalid_argument', 'protocols must list at least one protocol');
  }
  const map = new Map<string, Protocol>();
  for (const protocol of options.protocols) {
    if (map.has(protocol.name)) {
      throw new ParleyRestateError('invalid_argument', `Two protocols are named "${protocol.name}"`);
    }
    map.set(protocol.name, protocol);
  }
  return map;
}

/** Why an `open` input is not one (text), or undefined when its shape is right. */
export function openShape(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return 'open takes an object';
  const o = input as Record<string, unknown>;
  for (const field of ['protocol', 'from', 'to'] as const) {
    const value = o[field];
    if (typeof value !== 'string' || value.length === 0) return `"${field}" must be a non-empty string`;
  }
  const timeoutMs = o.timeoutMs;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || (timeoutMs as number) < 1)) {
    return '"timeoutMs" must be a positive integer';
  }
  return undefined;
}
