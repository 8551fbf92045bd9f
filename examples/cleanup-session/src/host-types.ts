// The options and the handle of a cleanup session host.
import type { Clock, JsonValue, Store } from '@parley/core';
import type { CredentialVault, Notifier, PlatformAdapter } from './adapters.js';
import type { CleanupStep } from './flow.js';
import type { Wait } from './persistence.js';
import type { SessionJson, SessionRecord } from './session-json.js';
import type { Transcript } from './transcript.js';

export interface CleanupHostOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly wait: Wait;
  /** Makes ids with a prefix (`sess_`, `plan_`, `rev_`). */
  readonly generateId: (prefix: string) => string;
  readonly platform: PlatformAdapter;
  readonly vault: CredentialVault;
  readonly notifier: Notifier;
  readonly transcript: Transcript;
  /** Waits between tries of a failed save; their count + 1 is the number of tries. */
  readonly saveDelaysMs?: readonly number[];
}

export interface CleanupHost {
  readonly sessionId: string;
  readonly step: CleanupStep | 'done';
  readonly done: boolean;
  reply(text: string): Promise<void>;
  record(): SessionRecord;
  sessionJson(): SessionJson;
  /** The redacted audit summary, once the user asked for an export at close. */
  readonly auditExport: JsonValue | undefined;
  /** Stops as the process would: clears the reminder timer (the stored reminder stays). */
  stop(): void;
  /** Resolves once a reminder that fired was sent and marked sent in the store. */
  settled(): Promise<void>;
}
