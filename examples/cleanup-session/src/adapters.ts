// The outside world as the host sees it — the platform that executes, the vault that vouches for a
// credential, the notifier — and the stand-ins of the scripted run. The platform contract is the one
// `@parley/testing`'s FakePlatform implements (PlatformRequest → PlatformResult); a deployment
// implements the same over HTTP.
import type { Clock } from '@parley/core';
import type { PlatformRequest, PlatformResult } from '@parley/testing';

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

/** A notification as sent (also the payload of the stored follow-up reminder). */
export type Notification = { readonly mode: string; readonly text: string };

export interface Notifier {
  send(notification: Notification): Promise<void>;
}

/** A credential the fake vault holds: absolute expiry, scopes, and whether it was revoked. */
export interface VaultEntry {
  readonly expiresAt: number;
  readonly scopes: readonly string[];
  readonly revoked?: boolean;
}

/** A vault holding a few credentials, with expiry on the injected clock. */
export function createFakeVault(
  clock: Clock,
  credentials: Readonly<Record<string, VaultEntry>>,
): CredentialVault {
  return {
    async check(ref) {
      const entry = credentials[ref];
      if (entry === undefined) return { status: 'unknown', expires_in_ms: null, scopes: [] };
      const left = entry.expiresAt - clock.now();
      const status = entry.revoked === true ? 'invalid' : left <= 0 ? 'expired' : 'valid';
      return { status, expires_in_ms: Math.max(left, 0), scopes: [...entry.scopes] };
    },
  };
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
