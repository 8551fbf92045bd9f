// The two stand-ins this host needs besides `@parley/testing`'s FakePlatform and FakeStore: a
// credential vault with expiry on the injected clock, and a notifier that records what it sends.
import type { Clock } from '@parley/core';
import type { CredentialVault, Notification, Notifier } from './adapters.js';

/** A credential the fake vault holds: absolute expiry, scopes, and whether it was revoked. */
export interface VaultEntry {
  readonly expiresAt: number;
  readonly scopes: readonly string[];
  readonly revoked?: boolean;
}

/** A vault holding a few credentials; `checked` counts the look-ups. */
export function createFakeVault(
  clock: Clock,
  credentials: Readonly<Record<string, VaultEntry>>,
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
