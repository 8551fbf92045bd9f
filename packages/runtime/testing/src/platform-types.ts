import type { Clock } from '@parley/core';

/**
 * One execution asked of a platform: an action (delete, takedown, report…) on some targets.
 *
 * @example
 * ```ts
 * import type { PlatformRequest } from '@parley/testing';
 *
 * const request: PlatformRequest = { action: 'takedown', targets: ['https://x.com/a/1'], params: { reason: 'dmca' } };
 * ```
 */
export interface PlatformRequest {
  readonly action: string;
  readonly targets: readonly string[];
  readonly params?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * A structured error for one target (or the whole call when `target` is absent).
 *
 * @example
 * ```ts
 * import type { PlatformError } from '@parley/testing';
 *
 * const error: PlatformError = { target: 'u2', code: 'rate_limited', message: 'Try again in 60 s', retryable: true };
 * ```
 */
export interface PlatformError {
  readonly target?: string | undefined;
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/**
 * What the executor of a cleanup-style flow returns: `success`, `partial` (some targets failed) or
 * `failed`, with the targets done and a structured error per failure.
 *
 * @example
 * ```ts
 * import type { PlatformResult } from '@parley/testing';
 *
 * const partial: PlatformResult = {
 *   status: 'partial',
 *   completed: ['u1'],
 *   errors: [{ target: 'u2', code: 'not_found', message: 'Already gone', retryable: false }],
 * };
 * ```
 */
export interface PlatformResult {
  readonly status: 'success' | 'partial' | 'failed';
  readonly completed: readonly string[];
  readonly errors: readonly PlatformError[];
}

/**
 * The fields of an error a script gives; the rest is filled in (`platform_error`, a message,
 * `retryable: false`).
 *
 * @example
 * ```ts
 * import type { PlatformErrorInit } from '@parley/testing';
 *
 * const init: PlatformErrorInit = { code: 'auth_expired', retryable: true };
 * ```
 */
export interface PlatformErrorInit {
  readonly code?: string;
  readonly message?: string;
  readonly retryable?: boolean;
}

/**
 * One scripted answer of a {@link FakePlatform}: an outcome (`'success'`, `'failed'`, or objects
 * naming the failing targets), a function, a thrown error (the transport failed), or a hang;
 * `delayMs` makes it arrive that late on the clock.
 *
 * @example
 * ```ts
 * import type { PlatformStep } from '@parley/testing';
 *
 * const steps: PlatformStep[] = [
 *   'success',
 *   { outcome: 'partial', failTargets: ['u2'], error: { code: 'not_found' } },
 *   { outcome: 'failed', error: { code: 'auth_expired', retryable: true } },
 *   { throws: new Error('ECONNRESET') },
 *   { hang: true },
 * ];
 * ```
 */
export type PlatformStep =
  | 'success'
  | 'failed'
  | { readonly outcome: 'success'; readonly delayMs?: number }
  | {
      readonly outcome: 'partial';
      readonly failTargets: readonly string[];
      readonly error?: PlatformErrorInit;
      readonly delayMs?: number;
    }
  | { readonly outcome: 'failed'; readonly error?: PlatformErrorInit; readonly delayMs?: number }
  | {
      /** Computes the result from the request and the call record. */
      readonly respond: (
        request: PlatformRequest,
        call: PlatformCall,
      ) => PlatformResult | Promise<PlatformResult>;
      readonly delayMs?: number;
    }
  | { readonly throws: unknown; readonly delayMs?: number }
  | { readonly hang: true };

/**
 * One recorded call of a {@link FakePlatform}.
 *
 * @example
 * ```ts
 * import type { PlatformCall } from '@parley/testing';
 *
 * const targetsOf = (calls: readonly PlatformCall[]) => calls.flatMap((c) => c.request.targets);
 * ```
 */
export interface PlatformCall {
  /** 1-based. */
  readonly n: number;
  readonly request: PlatformRequest;
  readonly at: number | undefined;
  readonly status: 'pending' | 'done' | 'threw';
  readonly result?: PlatformResult;
  readonly error?: unknown;
}

/**
 * Options for {@link createFakePlatform}.
 *
 * @example
 * ```ts
 * import type { FakePlatformOptions } from '@parley/testing';
 *
 * const options: FakePlatformOptions = { script: ['failed'], otherwise: 'success' };
 * ```
 */
export interface FakePlatformOptions {
  /** Answers used in order, one per call. */
  readonly script?: readonly PlatformStep[];
  /** Answers every call after the script is used up (none by default: such a call is unscripted). */
  readonly otherwise?: PlatformStep;
  /** Needed for `delayMs`; stamps `at` on each call. */
  readonly clock?: Clock;
  /** Names the platform in messages; `FakePlatform` by default. */
  readonly name?: string;
}

/**
 * Options of one {@link FakePlatform.execute} call.
 *
 * @example
 * ```ts
 * import type { ExecuteOptions } from '@parley/testing';
 *
 * const options: ExecuteOptions = { signal: new AbortController().signal };
 * ```
 */
export interface ExecuteOptions {
  /** Aborting it rejects a pending (delayed or hanging) call with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * A stand-in for the platform behind a cleanup-style flow's `execute` step.
 *
 * @example
 * ```ts
 * import { createFakePlatform, type FakePlatform } from '@parley/testing';
 *
 * const platform: FakePlatform = createFakePlatform({ otherwise: 'success' });
 * const result = await platform.execute({ action: 'delete', targets: ['m1', 'm2'] });
 * console.log(result.status, platform.timesCompleted('m1')); // success 1
 * ```
 */
export interface FakePlatform {
  /**
   * Runs one action as scripted and records it.
   *
   * @throws TestingError (as a rejection) `unscripted_call`, `invalid_argument` for a malformed request
   * or a `partial` step whose failing targets do not fit it; whatever a `throws` step gives.
   */
  execute(request: PlatformRequest, options?: ExecuteOptions): Promise<PlatformResult>;
  /** Every call, in order. */
  readonly calls: readonly PlatformCall[];
  /**
   * How many calls returned a result with this target completed; with `action`, only calls of that
   * action count (`timesCompleted('u1', 'remove_member')`).
   */
  timesCompleted(target: string, action?: string): number;
  /** Makes this target fail in every later call answered by a `success` or `partial` step. */
  failTarget(target: string, error?: PlatformErrorInit): void;
  /** Appends steps to the script. */
  enqueue(...steps: PlatformStep[]): void;
  /** Ordered steps not used yet. */
  readonly remaining: number;
  /**
   * Throws when ordered steps are left unused.
   *
   * @throws TestingError `assertion_failed`.
   */
  assertAllUsed(): void;
}
