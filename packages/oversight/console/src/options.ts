import { type Clock, type Store, systemClock } from '@parley/core';
import type { PipelineDefinition } from '@parley/pipeline';
import type { ConsoleRequest } from './http.js';
import { ConsoleError } from './errors.js';
import type { ViewContext } from './internal/context.js';

/**
 * Rows a listing page shows when `pageSize` is not given.
 *
 * @example
 * ```ts
 * import { DEFAULT_PAGE_SIZE } from '@parley/console';
 *
 * console.log(DEFAULT_PAGE_SIZE); // 50
 * ```
 */
export const DEFAULT_PAGE_SIZE = 50;

/**
 * The largest `pageSize` a console accepts.
 *
 * @example
 * ```ts
 * import { MAX_PAGE_SIZE } from '@parley/console';
 *
 * console.log(MAX_PAGE_SIZE); // 500
 * ```
 */
export const MAX_PAGE_SIZE = 500;

/**
 * Characters of one stored text (a chat name, a summary, a reason) a page shows at most; the rest
 * is cut with a marker saying how many characters were left out.
 *
 * @example
 * ```ts
 * import { MAX_TEXT_LENGTH } from '@parley/console';
 *
 * console.log(MAX_TEXT_LENGTH); // 500
 * ```
 */
export const MAX_TEXT_LENGTH = 500;

/**
 * Options of {@link createConsole}. Only `store` is required; the key prefixes default to the ones
 * the gates, runners and ledgers use by default.
 *
 * @example
 * ```ts
 * import type { ConsoleOptions } from '@parley/console';
 * import { createMemoryStore } from '@parley/core';
 *
 * const options: ConsoleOptions = {
 *   store: createMemoryStore(),
 *   authenticate: (req) => req.headers.authorization === 'Bearer operator-token',
 *   pageSize: 25,
 * };
 * ```
 */
export interface ConsoleOptions {
  /** The store the gates, runners and ledger write (memory, Redis, Postgres). Read only. */
  readonly store: Store;
  /** Time for "time left" and for telling an expired claim lease (default: the system clock). */
  readonly clock?: Clock;
  /**
   * Decides whether a request may see anything; when it answers false (or throws), the answer is
   * 401 with no data. Without it every request is served: mount the console behind your own auth.
   */
  readonly authenticate?: (req: ConsoleRequest) => boolean | Promise<boolean>;
  /** Show raw action arguments and claimed content (`args`), run inputs and node outputs (`outputs`). Default: neither. */
  readonly reveal?: { readonly args?: boolean; readonly outputs?: boolean };
  /** Rows per listing page, 1…{@link MAX_PAGE_SIZE} (default {@link DEFAULT_PAGE_SIZE}). */
  readonly pageSize?: number;
  /** The consent ledger's chains: their key prefix (default `parley:ledger:`) and the keys that must sign them. */
  readonly ledger?: {
    readonly keyPrefix?: string;
    readonly publicKeys?: Readonly<Record<string, string>>;
  };
  /** Pipeline definitions, so a run's page can draw its graph (a run is matched by name and digest). */
  readonly pipelines?: readonly PipelineDefinition[];
  /** The confirm gate's `keyPrefix` (default `confirm:`). */
  readonly confirmKeyPrefix?: string;
  /** The pipeline runner's `keyPrefix` (default `pipeline:`). */
  readonly pipelineKeyPrefix?: string;
  /** Where kernel claims are looked for (default `['']`: the whole store, one pass per page). */
  readonly claimKeyPrefixes?: readonly string[];
  /** The path the host mounts the console under (default `''`), for its links. */
  readonly basePath?: string;
  /** Seconds after which a page reloads itself (a meta refresh, no script); 0 turns it off (default 15). */
  readonly refreshSeconds?: number;
}

/** @internal The options checked and completed. */
export interface Resolved extends ViewContext {
  readonly authenticate: ConsoleOptions['authenticate'];
  readonly basePath: string;
  readonly refreshSeconds: number;
}

/** @internal */
export function resolveOptions(options: ConsoleOptions): Resolved {
  if (typeof options !== 'object' || options === null || typeof options.store?.list !== 'function') {
    throw new ConsoleError('invalid_argument', 'createConsole needs a store');
  }
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new ConsoleError('invalid_argument', `pageSize must be an integer in 1…${MAX_PAGE_SIZE}`);
  }
  const refreshSeconds = options.refreshSeconds ?? 15;
  if (!Number.isSafeInteger(refreshSeconds) || refreshSeconds < 0 || refreshSeconds > 86_400) {
    throw new ConsoleError('invalid_argument', 'refreshSeconds must be an integer in 0…86400');
  }
  const basePath = options.basePath ?? '';
  if (basePath !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(basePath)) {
    throw new ConsoleError(
      'invalid_argument',
      'basePath must be empty or a path such as /console (no trailing slash)',
    );
  }
  if (options.authenticate !== undefined && typeof options.authenticate !== 'function') {
    throw new ConsoleError('invalid_argument', 'authenticate must be a function');
  }
  const claimPrefixes = options.claimKeyPrefixes ?? [''];
  if (
    !Array.isArray(claimPrefixes) ||
    claimPrefixes.length === 0 ||
    !claimPrefixes.every((p) => typeof p === 'string')
  ) {
    throw new ConsoleError('invalid_argument', 'claimKeyPrefixes must be a non-empty list of strings');
  }
  return {
    store: options.store,
    clock: options.clock ?? systemClock,
    pageSize,
    maxTextLength: MAX_TEXT_LENGTH,
    reveal: { args: options.reveal?.args === true, outputs: options.reveal?.outputs === true },
    confirmPrefix: options.confirmKeyPrefix ?? 'confirm:',
    pipelinePrefix: options.pipelineKeyPrefix ?? 'pipeline:',
    ledgerPrefix: options.ledger?.keyPrefix ?? 'parley:ledger:',
    claimPrefixes,
    publicKeys: options.ledger?.publicKeys,
    pipelines: options.pipelines ?? [],
    authenticate: options.authenticate,
    basePath,
    refreshSeconds,
  };
}
