import type { RestateErrorCode } from './errors.js';

/**
 * What a `watch` handler answers a waiter: a refusal, the final value already, or the waiter's
 * awakeable registered (it is resolved, as a hint only, when the value becomes final).
 *
 * @example
 * ```ts
 * import type { Watched } from '@parley/restate';
 *
 * const registered: Watched<string> = { ok: true, watching: true };
 * console.log(registered.ok); // true
 * ```
 */
export type Watched<T> =
  | { readonly ok: false; readonly code: RestateErrorCode; readonly message: string }
  | { readonly ok: true; readonly watching: false; readonly record: T }
  | { readonly ok: true; readonly watching: true };
