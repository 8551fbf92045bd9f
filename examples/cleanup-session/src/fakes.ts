// Stand-ins for the world this host talks to: the platform adapter, the credential vault, the
// notifier, and a Store that fails on cue. `createFakePlatform` follows the shapes of
// `@parley/testing`'s FakePlatform (PlatformRequest, PlatformResult, a script of outcomes), which was
// not yet published when this example was written; swap the import when it is.
import type { Clock, JsonValue, Store } from '@parley/core';

/** One execution asked of a platform: an action on some targets. */
export interface PlatformRequest {
  readonly action: string;
  readonly targets: readonly string[];
  readonly params?: Readonly<Record<string, unknown>> | undefined;
}

/** A structured error for one target (or the whole call when `target` is absent). */
export interface PlatformError {
  readonly target?: string;
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/** What the adapter returns: every target done, some, or none, with an error per failure. */
export interface PlatformResult {
  readonly status: 'success' | 'partial' | 'failed';
  readonly completed: readonly string[];
  readonly errors: readonly PlatformError[];
}

/** The adapter the execute step calls. */
export interface PlatformAdapter {
  execute(request: PlatformRequest): Promise<PlatformResult>;
}

type ErrorInit = { readonly code?: string; readonly message?: string; readonly retryable?: boolean };

/** One scripted answer: success, a failure of the whole call, some failing targets, or a thrown error. */
export type PlatformStep =
  | 'success'
  | 'failed'
  | { readonly outcome: 'failed'; readonly error?: ErrorInit }
  | { readonly outcome: 'partial'; readonly failTargets: readonly string[]; readonly error?: ErrorInit }
  | { readonly throws: unknown };

export interface FakePlatform extends PlatformAdapter {
  /** Every request, in order. */
  readonly calls: readonly PlatformRequest[];
  /** How many calls completed this target. */
  timesCompleted(target: string): number;
}

/** A platform adapter answering from a script, then `otherwise`; an unscripted call throws. */
export function createFakePlatform(
  options: { readonly script?: readonly PlatformStep[]; readonly otherwise?: PlatformStep } = {},
): FakePlatform {
  const queue = [...(options.script ?? [])];
  const calls: PlatformRequest[] = [];
  const completed = new Map<string, number>();
  const toError = (init: ErrorInit | undefined, action: string, target?: string): PlatformError => ({
    ...(target === undefined ? {} : { target }),
    code: init?.code ?? 'platform_error',
    message: init?.message ?? `${action} failed${target === undefined ? '' : ` for ${target}`}`,
    retryable: init?.retryable ?? false,
  });
  return {
    calls,
    timesCompleted: (target) => completed.get(target) ?? 0,
    async execute(request) {
      calls.push(request);
      const step = queue.shift() ?? options.otherwise;
      if (step === undefined)
        throw new Error(`FakePlatform: unscripted call #${calls.length} (${request.action})`);
      if (typeof step === 'object' && 'throws' in step) throw step.throws;
      let result: PlatformResult;
      if (step === 'failed' || (typeof step === 'object' && step.outcome === 'failed')) {
        const init = typeof step === 'object' ? step.error : undefined;
        result = { status: 'failed', completed: [], errors: [toError(init, request.action)] };
      } else {
        const failing = typeof step === 'object' ? step.failTargets : [];
        const error = typeof step === 'object' ? step.error : undefined;
        const done = request.targets.filter((t) => !failing.includes(t));
        const errors = request.targets
          .filter((t) => failing.includes(t))
          .map((t) => toError(error, request.action, t));
        result = {
          status: errors.length === 0 ? 'success' : done.length === 0 ? 'failed' : 'partial',
          completed: done,
          errors,
        };
      }
      for (const target of result.completed) completed.set(target, (completed.get(target) ?? 0) + 1);
      return result;
    },
  };
}

/** What the vault says about a credential reference; the reference itself never leaves the host. */
export interface CredentialCheck {
  readonly status: 'valid' | 'expired' | 'invalid' | 'unknown';
  readonly expires_in_ms: number | null;
  readonly scopes: string[];
}

export interface CredentialVault {
  check(ref: string): Promise<CredentialCheck>;
}

/** A vault holding a few credentials with absolute expiry times on the injected clock. */
export function createFakeVault(
  clock: Clock,
  credentials: Readonly<
    Record<
      string,
      { readonly expiresAt: number; readonly scopes: readonly string[]; readonly revoked?: boolean }
    >
  >,
): CredentialVault & { readonly checked: number } {
  let checked = 0;
  return {
    get checked() {
      return checked;
    },
    async check(ref) {
      checked++;
      const entry = credentials[ref];
      if (entry === undefined) return { status: 'unknown', expires_in_ms: null, scopes: [] };
      const left = entry.expiresAt - clock.now();
      const status = entry.revoked === true ? 'invalid' : left <= 0 ? 'expired' : 'valid';
      return { status, expires_in_ms: Math.max(left, 0), scopes: [...entry.scopes] };
    },
  };
}

/** A notification as sent. */
export interface Notification {
  readonly mode: string;
  readonly text: string;
}

export interface Notifier {
  send(notification: Notification): Promise<void>;
}

/** A notifier that records what it would have sent. */
export function createFakeNotifier(): Notifier & { readonly sent: readonly Notification[] } {
  const sent: Notification[] = [];
  return {
    sent,
    async send(notification) {
      sent.push(notification);
    },
  };
}

/** A Store whose next writes fail on cue, for the close_pending path. */
export interface FlakyStore extends Store {
  /** Makes the next `times` writes (set / compareAndSet / delete) of keys starting with `prefix` reject. */
  failWrites(times: number, prefix?: string): void;
  /** Writes rejected so far. */
  readonly failures: number;
}

/** Wraps a Store so that writes fail when told to; reads and everything else pass through. */
export function createFlakyStore(inner: Store): FlakyStore {
  let remaining = 0;
  let prefix = '';
  let failures = 0;
  const gate = (key: string): void => {
    if (remaining > 0 && key.startsWith(prefix)) {
      remaining--;
      failures++;
      throw new Error(`store unavailable (injected failure ${failures})`);
    }
  };
  return {
    get failures() {
      return failures;
    },
    failWrites(times, keyPrefix = '') {
      remaining = times;
      prefix = keyPrefix;
    },
    get: (key) => inner.get(key),
    getEntry: (key) => inner.getEntry(key),
    async set(key, value: JsonValue, options) {
      gate(key);
      return inner.set(key, value, options);
    },
    async delete(key) {
      gate(key);
      return inner.delete(key);
    },
    async compareAndSet(key, expected, value, options) {
      gate(key);
      return inner.compareAndSet(key, expected, value, options);
    },
    list: (keyPrefix) => inner.list(keyPrefix),
    close: () => inner.close(),
  };
}
