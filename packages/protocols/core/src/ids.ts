import { customAlphabet, nanoid } from 'nanoid';
import { CoreError } from './errors.js';

/**
 * A function that returns a fresh id each call.
 *
 * @example
 * ```ts
 * import { createIdGenerator, type IdGenerator } from '@parley/core';
 *
 * const next: IdGenerator = createIdGenerator({ prefix: 'req_' });
 * ```
 */
export type IdGenerator = () => string;

/**
 * Returns a new random, URL-safe id (nanoid, 21 characters, ~126 bits), with an optional prefix.
 *
 * @example
 * ```ts
 * import { generateId } from '@parley/core';
 *
 * const id = generateId('cfm_'); // e.g. 'cfm_V1StGXR8_Z5jdHi6B-myT'
 * ```
 */
export function generateId(prefix = ''): string {
  return prefix + nanoid();
}

/**
 * Options for {@link createIdGenerator}.
 *
 * @example
 * ```ts
 * import type { IdGeneratorOptions } from '@parley/core';
 *
 * const options: IdGeneratorOptions = { prefix: 'req_', size: 16 };
 * ```
 */
export interface IdGeneratorOptions {
  /** Put before every id, e.g. `req_`. */
  readonly prefix?: string;
  /** Random characters per id; 21 by default, at least 8. */
  readonly size?: number;
  /** Replace the random source entirely, e.g. in tests; the prefix is still added. */
  readonly generate?: IdGenerator;
}

/**
 * Creates an id generator with a prefix and size, or wraps a generator the host supplies.
 *
 * Every Parley component that makes ids takes a `generateId` option; pass one of these to control
 * the prefix, or {@link createSequentialIds} in tests.
 *
 * @throws CoreError `invalid_argument` when `size` is below 8 or above 64.
 * @example
 * ```ts
 * import { createIdGenerator } from '@parley/core';
 *
 * const nextRequestId = createIdGenerator({ prefix: 'req_', size: 12 });
 * console.log(nextRequestId().length); // 16
 * ```
 */
export function createIdGenerator(options: IdGeneratorOptions = {}): IdGenerator {
  const prefix = options.prefix ?? '';
  if (options.generate !== undefined) {
    const generate = options.generate;
    return () => prefix + generate();
  }
  const size = options.size ?? 21;
  if (!Number.isInteger(size) || size < 8 || size > 64) {
    throw new CoreError('invalid_argument', `size must be an integer from 8 to 64, got ${size}`, {
      details: { size },
    });
  }
  if (size === 21) return () => prefix + nanoid();
  const random = customAlphabet(URL_ALPHABET, size);
  return () => prefix + random();
}

/**
 * Creates a generator of predictable ids (`prefix1`, `prefix2`, …) for tests and examples.
 *
 * @example
 * ```ts
 * import { createSequentialIds } from '@parley/core';
 *
 * const next = createSequentialIds('req_');
 * console.log(next(), next()); // req_1 req_2
 * ```
 */
export function createSequentialIds(prefix = 'id_', start = 1): IdGenerator {
  let n = start;
  return () => `${prefix}${n++}`;
}

const URL_ALPHABET = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict';
