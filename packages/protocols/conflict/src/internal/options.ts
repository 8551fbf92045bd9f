import { ConflictError } from '../errors.js';

/** Checks a limit: an integer from 0 to `max` (100 by default). */
export function checkLimit(value: unknown, name: string, fallback: number, max = 100): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new ConflictError(
      'invalid_argument',
      `${name} must be an integer from 0 to ${max}, got ${String(value)}`,
      {
        details: { name, value: typeof value === 'number' ? value : String(value) },
      },
    );
  }
  return value;
}

export function checkFunction(value: unknown, name: string): void {
  if (typeof value !== 'function') {
    throw new ConflictError('invalid_argument', `${name} must be a function`, { details: { name } });
  }
}
