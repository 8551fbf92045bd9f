// Runs a scripted scenario end to end on injected time, ids and storage, and returns everything a
// test (or the CLI) wants to look at: the final session JSON, the transcript, the store, the fakes.
import { createSequentialIds, type IdGenerator, type JsonValue, type ManualClock } from '@parley/core';
import { createFakePlatform, createFakeStore, type FakePlatform, type FakeStore } from '@parley/testing';
import { createFakeNotifier, createFakeVault, type Notification } from './adapters.js';
import {
  type CleanupHost,
  type CleanupHostOptions,
  resumeCleanupSession,
  startCleanupSession,
} from './host.js';
import { createReviewQueues, type Wait } from './persistence.js';
import type { Scenario } from './scenarios.js';
import type { CleanupRecord, SessionJson } from './session-json.js';
import { createTranscript, type Transcript } from './transcript.js';

/** How long the scripted user takes to answer. */
export const THINK_MS = 15_000;

export interface RunOptions {
  readonly scenario: Scenario;
  /** Scripted time: the run moves it forward itself. */
  readonly clock: ManualClock;
  /** Ids with a prefix; per-prefix sequential ids by default (`sess_1`, `plan_1`…). */
  readonly generateId?: (prefix: string) => string;
  /** Each transcript line as it is written (already redacted). */
  readonly output?: (line: string) => void;
  /** Another transcript to append to (several scenarios in one). */
  readonly transcript?: Transcript;
}

export interface RunResult {
  readonly sessionId: string;
  readonly step: string;
  readonly done: boolean;
  readonly sessionJson: SessionJson;
  readonly record: CleanupRecord;
  readonly auditExport: JsonValue | undefined;
  readonly transcript: readonly string[];
  readonly store: FakeStore;
  readonly platform: FakePlatform;
  readonly notifications: readonly Notification[];
  readonly reviews: { readonly unresolved: JsonValue[]; readonly manual: JsonValue[] };
}

/** Runs one scenario: starts a session, feeds the scripted replies, restarts the host where told. */
export async function runCleanupSession(options: RunOptions): Promise<RunResult> {
  const { scenario, clock } = options;
  const generateId = options.generateId ?? createPrefixedIds();
  const transcript = options.transcript ?? createTranscript(clock, options.output);
  const store = createFakeStore({ clock });
  const platform = createFakePlatform({ script: scenario.platform });
  const notifier = createFakeNotifier();
  const start = clock.now();
  const credentials = Object.fromEntries(
    Object.entries(scenario.credentials).map(([ref, c]) => [ref, { ...c, expiresAt: start + c.expiresInMs }]),
  );
  const wait = manualWait(clock);
  const hostOptions: CleanupHostOptions = {
    store,
    clock,
    wait,
    generateId,
    platform,
    vault: createFakeVault(clock, credentials),
    notifier,
    transcript,
  };

  /** The process stops (its timers with it) and a new host resumes the session from the store. */
  let auditExport: JsonValue | undefined; // what the user was given before a restart
  const restart = async (old: CleanupHost): Promise<CleanupHost> => {
    old.stop();
    auditExport ??= old.auditExport;
    transcript.say('system', old.step, '⟲ the host restarts; nothing is kept in memory');
    return resumeCleanupSession(hostOptions, old.sessionId);
  };
  transcript.heading(scenario.title);
  let host: CleanupHost = await startCleanupSession(hostOptions);
  for (const [index, text] of scenario.replies.entries()) {
    if (index === scenario.restartBefore) host = await restart(host);
    if (index === scenario.storeFault?.beforeReply) {
      transcript.say(
        'system',
        host.step,
        `the store's writes (set) will fail ${scenario.storeFault.times} time(s)`,
      );
      store.fail('set', { times: scenario.storeFault.times });
    }
    await wait(THINK_MS);
    await host.reply(text);
  }
  if (scenario.afterClose !== undefined) {
    if (scenario.afterClose.restart) host = await restart(host);
    const days = scenario.afterClose.waitMs / 86_400_000;
    transcript.say(
      'system',
      host.step,
      `(${days} day(s) pass, to ${new Date(clock.now() + scenario.afterClose.waitMs).toISOString().slice(0, 10)})`,
    );
    await wait(scenario.afterClose.waitMs);
    await host.settled();
  }
  host.stop();

  const repo = createReviewQueues(store, clock, () => generateId('rev_'));
  return {
    sessionId: host.sessionId,
    step: host.step,
    done: host.done,
    sessionJson: host.sessionJson(),
    record: host.record(),
    auditExport: host.auditExport ?? auditExport,
    transcript: transcript.lines,
    store,
    platform,
    notifications: notifier.sent,
    reviews: {
      unresolved: await repo.list('unresolved-targets'),
      manual: await repo.list('manual-execution'),
    },
  };
}

/** Waits by moving a manual clock: the scripted run never sleeps. */
export function manualWait(clock: ManualClock): Wait {
  return (ms) => {
    const done = new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
    clock.advance(ms);
    return done;
  };
}

/** Sequential ids per prefix: `sess_1`, `plan_1`, `rev_1`, `rev_2`… */
export function createPrefixedIds(): (prefix: string) => string {
  const generators = new Map<string, IdGenerator>();
  return (prefix) => {
    const next = generators.get(prefix) ?? createSequentialIds(prefix);
    generators.set(prefix, next);
    return next();
  };
}
