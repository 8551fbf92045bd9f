import { isParleyError } from '@parley/core';
import { TestingError } from '../errors.js';
import { describe } from './format.js';

/** The assertions a conformance suite's cases use; each throws TestingError `assertion_failed`. */
export interface Checks {
  fail(message: string): never;
  check(condition: boolean, what: string): void;
  equal(actual: unknown, expected: unknown, what: string): void;
  rejects(promise: Promise<unknown>, code: string): Promise<void>;
}

/** Assertions whose messages start with `suite` ("Store conformance: expected …"). */
export function checksFor(suite: string): Checks {
  const fail = (message: string): never => {
    throw new TestingError('assertion_failed', `${suite}: expected ${message}`);
  };
  return {
    fail,
    check(condition, what) {
      if (!condition) fail(what);
    },
    equal(actual, expected, what) {
      if (!same(actual, expected)) fail(`${what} to be ${describe(expected)}, got ${describe(actual)}`);
    },
    async rejects(promise, code) {
      let outcome: unknown;
      try {
        outcome = await promise;
      } catch (error) {
        if (isParleyError(error, code)) return;
        fail(`a rejection with code "${code}", got ${describe(error)}`);
      }
      fail(`a rejection with code "${code}", got a result ${describe(outcome)}`);
    },
  };
}

/** Deep equality of plain data, a property set to `undefined` counting as absent (as `toEqual` does). */
export function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysOf = (value: object): string[] =>
    Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  const ka = keysOf(a);
  const kb = keysOf(b);
  if (ka.length !== kb.length) return false;
  return ka.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
