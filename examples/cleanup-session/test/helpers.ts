// Drives one host directly (no scenario runner), for tests that look between replies.
import { createManualClock, type ManualClock } from '@parley/core';
import {
  createFakePlatform,
  createFakeStore,
  type FakePlatform,
  type FakeStore,
  type PlatformStep,
} from '@parley/testing';
import { createFakeNotifier, createFakeVault, type VaultEntry } from '../src/adapters.js';
import type { CleanupHostOptions } from '../src/host.js';
import { createPrefixedIds, manualWait } from '../src/run.js';
import { createTranscript, type Transcript } from '../src/transcript.js';

export const START = Date.UTC(2026, 3, 15, 9, 0, 0);
export const MINUTE = 60_000;
export const GOOD_REF = 'vault://cleanup/x/test-report';

export interface Rig {
  readonly clock: ManualClock;
  readonly store: FakeStore;
  readonly platform: FakePlatform;
  readonly notifier: ReturnType<typeof createFakeNotifier>;
  readonly vault: ReturnType<typeof createFakeVault>;
  readonly transcript: Transcript;
  readonly options: CleanupHostOptions;
}

export function createRig(
  setup: {
    readonly platform?: readonly PlatformStep[];
    readonly credentials?: Readonly<Record<string, VaultEntry>>;
    readonly saveDelaysMs?: readonly number[];
  } = {},
): Rig {
  const clock = createManualClock({ now: START });
  const store = createFakeStore({ clock });
  const platform = createFakePlatform({ script: setup.platform ?? [], clock });
  const notifier = createFakeNotifier();
  const vault = createFakeVault(
    clock,
    setup.credentials ?? { [GOOD_REF]: { expiresAt: START + 30 * MINUTE, scopes: ['report:write'] } },
  );
  const transcript = createTranscript(clock);
  const options: CleanupHostOptions = {
    store,
    clock,
    wait: manualWait(clock),
    generateId: createPrefixedIds(),
    platform,
    vault,
    notifier,
    transcript,
    ...(setup.saveDelaysMs === undefined ? {} : { saveDelaysMs: setup.saveDelaysMs }),
  };
  return { clock, store, platform, notifier, vault, transcript, options };
}

/** Replies that take a DMCA takedown on X up to the execute prompt. */
export const TO_EXECUTE = [
  'DMCA takedown: remove the infringing reposts of my photos on X',
  'x https://x.com/reposter/status/1 x:2',
  `oauth ${GOOD_REF} I consent`,
  '#1 ev1 This account reposts my original photos without a license. #2 ev2 This one reposts my photos too, unlicensed. I confirm this is authentic.',
  'YES',
  'YES',
  'YES',
  'no',
] as const;

/** What comes after a successful execution, to the end. */
export const TO_END = ['telegram', 'yes, export the audit'] as const;

/** What one speaker said, without the time and step columns. */
export function linesOf(transcript: Transcript, speaker: string): string[] {
  return transcript.lines
    .filter((line) => line.slice(26, 32).trim() === speaker)
    .map((line) => line.slice(33));
}
