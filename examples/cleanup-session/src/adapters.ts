// The outside world as the host sees it: the platform that executes, the vault that vouches for a
// credential, the notifier. A real deployment implements these over HTTP; the scripted run uses
// `@parley/testing`'s FakePlatform (same shapes) and the small fakes in fakes.ts.

/** One execution asked of a platform: an action on some targets. */
export interface PlatformRequest {
  readonly action: string;
  readonly targets: readonly string[];
  readonly params?: Readonly<Record<string, unknown>> | undefined;
}

/** A structured error for one target (or the whole call when `target` is absent). */
export interface PlatformError {
  readonly target?: string | undefined;
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

/** The adapter the execute step calls, and only there. */
export interface PlatformAdapter {
  execute(request: PlatformRequest): Promise<PlatformResult>;
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

/** A notification as sent. */
export interface Notification {
  readonly mode: string;
  readonly text: string;
}

export interface Notifier {
  send(notification: Notification): Promise<void>;
}
