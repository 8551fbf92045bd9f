import { assertTimeoutMs, isConsentLedger } from '@parley/core';
import type { AnyToolDefinition } from '../define.js';
import { ToolsError } from '../errors.js';
import type { ToolGateOptions, ToolRunOptions } from '../gate-types.js';
import type { ToolPolicy } from '../hook-types.js';
import { checkLimits, type ToolGateLimits } from '../limits.js';
import type { DisableUntil } from '../types.js';

// The checks of the gate's options and of each batch's run options.

/** The latest time `Date` can represent, so `disabled_until` can always be written. */
const MAX_TIME_MS = 8.64e15;

/** The gate's hooks, memory and limits options, checked; the defaults filled in. */
export function checkGateOptions(options: ToolGateOptions<readonly AnyToolDefinition[], never>): {
  readonly keepTurns: number;
  readonly limits: ToolGateLimits;
  readonly repeatedContent: 'run' | 'replay' | 'refuse';
} {
  if (options.confirm !== undefined && !isConfirmOption(options.confirm)) {
    throw new ToolsError('invalid_argument', 'confirm must be a @parley/confirm gate or a function');
  }
  if (options.ledger !== undefined && !isConsentLedger(options.ledger)) {
    throw new ToolsError('invalid_argument', 'ledger must have an append function');
  }
  if (options.repair !== undefined && typeof options.repair !== 'function') {
    throw new ToolsError('invalid_argument', 'repair must be a function');
  }
  const keepTurns = options.keepTurns ?? 2;
  if (!Number.isInteger(keepTurns) || keepTurns < 1) {
    throw new ToolsError('invalid_argument', `keepTurns must be an integer ≥ 1, got ${String(keepTurns)}`);
  }
  const limits = checkLimits(options.limits);
  const repeatedContent = options.repeatedContent ?? 'run';
  if (!['run', 'replay', 'refuse'].includes(repeatedContent)) {
    throw new ToolsError('invalid_argument', 'repeatedContent must be "run", "replay" or "refuse"');
  }
  return { keepTurns, limits, repeatedContent };
}

export function storeOptions(options: ToolGateOptions<readonly AnyToolDefinition[], never>): {
  readonly store: ToolGateOptions<readonly AnyToolDefinition[], never>['store'];
  readonly prefix: string;
  readonly ttlMs: number | undefined;
} {
  const { store, storePrefix = 'parley:tools:', storeTtlMs } = options;
  if (store !== undefined && (typeof store !== 'object' || typeof store?.compareAndSet !== 'function')) {
    throw new ToolsError('invalid_argument', 'store must be a @parley/core Store');
  }
  if (typeof storePrefix !== 'string') throw new ToolsError('invalid_argument', 'storePrefix must be text');
  return {
    store,
    prefix: storePrefix,
    ttlMs: storeTtlMs === undefined ? undefined : assertTimeoutMs(storeTtlMs, 'storeTtlMs'),
  };
}

export function checkRun(run: ToolRunOptions<unknown>): void {
  if (typeof run !== 'object' || run === null || !Number.isSafeInteger(run.turn)) {
    throw new ToolsError('invalid_argument', 'process needs options with an integer "turn"', {
      details: { turn: String((run as { turn?: unknown } | null)?.turn) },
    });
  }
  if (run.confirmTimeoutMs !== undefined) assertTimeoutMs(run.confirmTimeoutMs, 'confirmTimeoutMs');
}

export function checkUntil(until: DisableUntil): DisableUntil {
  if (typeof until === 'object' && until !== null) {
    if ('turn' in until && Number.isSafeInteger(until.turn)) return { turn: until.turn };
    if ('at' in until && Number.isFinite(until.at) && Math.abs(until.at) <= MAX_TIME_MS)
      return { at: until.at };
  }
  throw new ToolsError('invalid_argument', 'until must be { turn: integer } or { at: epoch ms }', {
    details: { until: JSON.stringify(until) ?? String(until) },
  });
}

export function checkPolicies<TContext>(
  policies: readonly ToolPolicy<TContext, string>[],
  byName: ReadonlyMap<string, AnyToolDefinition>,
): readonly ToolPolicy<TContext>[] {
  if (!Array.isArray(policies)) throw new ToolsError('invalid_argument', 'policies must be a list');
  for (const policy of policies) {
    if (typeof policy?.check !== 'function' || typeof policy.name !== 'string' || policy.name === '') {
      throw new ToolsError('invalid_argument', 'a policy needs a name and a check function');
    }
    for (const tool of policy.tools ?? []) {
      if (!byName.has(tool)) {
        throw new ToolsError(
          'invalid_argument',
          `The policy "${policy.name}" names the unknown tool "${tool}"`,
          {
            details: { policy: policy.name, tool },
          },
        );
      }
    }
  }
  return [...policies];
}

export function isConfirmOption(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null) return false;
  const gate = value as { request?: unknown; authorize?: unknown };
  return typeof gate.request === 'function' && typeof gate.authorize === 'function';
}
