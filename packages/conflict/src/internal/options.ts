import { ConflictError } from '../errors.js';

/** Checks a retry limit: an integer from 0 to 100. */
export function checkLimit(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100) {
    throw new ConflictError(
      'invalid_argument',
      `${name} must be an integer from 0 to 100, got ${String(value)}`,
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
