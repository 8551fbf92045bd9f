/** The default deadline of a request: 30 s. @example
 * ```ts
 * import { DEFAULT_TIMEOUT_MS } from '@parley/correlate';
 *
 * console.log(DEFAULT_TIMEOUT_MS); // 30000
 * ```
 */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The default deadline of a request waiting on a person: 30 min. @example
 * ```ts
 * import { DEFAULT_HUMAN_TIMEOUT_MS } from '@parley/correlate';
 *
 * console.log(DEFAULT_HUMAN_TIMEOUT_MS); // 1800000
 * ```
 */
export const DEFAULT_HUMAN_TIMEOUT_MS = 30 * 60_000;
/** The default maximum life of a request, progress included: 24 h. @example
 * ```ts
 * import { DEFAULT_MAX_TOTAL_MS } from '@parley/correlate';
 *
 * console.log(DEFAULT_MAX_TOTAL_MS); // 86400000
 * ```
 */
export const DEFAULT_MAX_TOTAL_MS = 24 * 60 * 60_000;
/** The default limit of pending requests per direction: 10 000. @example
 * ```ts
 * import { DEFAULT_MAX_PENDING_REQUESTS } from '@parley/correlate';
 *
 * console.log(DEFAULT_MAX_PENDING_REQUESTS); // 10000
 * ```
 */
export const DEFAULT_MAX_PENDING_REQUESTS = 10_000;
/** How long settled records are kept for audit by default: 5 min. @example
 * ```ts
 * import { DEFAULT_RETAIN_SETTLED_MS } from '@parley/correlate';
 *
 * console.log(DEFAULT_RETAIN_SETTLED_MS); // 300000
 * ```
 */
export const DEFAULT_RETAIN_SETTLED_MS = 5 * 60_000;
/**
 * The most settled records kept in memory by default: 256 per direction (oldest dropped first).
 * Enough to name a late or duplicate reply for a while; a correlator with a `store` also finds
 * older outcomes there. Raise it for a longer in-memory audit trail: each kept record costs a few
 * hundred bytes, and at hundreds of thousands of requests a second a larger window costs time too.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_SETTLED } from '@parley/correlate';
 *
 * console.log(DEFAULT_MAX_SETTLED); // 256
 * ```
 */
export const DEFAULT_MAX_SETTLED = 256;
