// The host of one cleanup session: wiring for @parley/fsm's chat-flow host. `createChatFlowHost`
// owns the loop (one reply at a time per session, read → submit → the step's effects → the next
// question, re-asking on resume, effects claimed before they run); the stored flow session owns
// compare-and-set writes, drafts and the close_pending retry; `createFollowUps` owns the reminder.
// What is left here is this flow's readers, effects and wording.
import type { Clock, JsonValue, Store } from '@parley/core';
import { describeFlowResult } from '@parley/fsm';
import {
  type ChatFlowResult,
  createChatFlowHost,
  createFollowUps,
  type StoredFlowSession,
} from '@parley/chat-flow';
import type { CredentialVault, Notification, Notifier, PlatformAdapter } from './adapters.js';
import * as effects from './effects.js';
import type { CleanupStep } from './flow.js';
import {
  createCleanupSessions,
  followUpKey,
  refusedError,
  SessionConflictError,
  type Wait,
} from './persistence.js';
import { numberedTargets, scopeTargets } from './evidence.js';
import { EXECUTE_COMMAND_HINT, readAnswer, readExecuteCommand } from './replies.js';
import { type CleanupRecord, type HostData, type SessionJson, toSessionJson } from './session-json.js';
import { type Ctx, createSteps } from './steps.js';
import type { Transcript } from './transcript.js';

export interface CleanupHostOptions {
  readonly store: Store;
  readonly clock: Clock;
  /** Waits between retries; a timer on `clock` by default (the scripted run moves its manual clock). */
  readonly wait?: Wait;
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
  /** Handles one reply; a `messageId` seen before (a redelivery, also after a restart) is ignored. */
  reply(text: string, messageId?: string): Promise<void>;
  /** The stored record as this host last wrote it. */
  record(): CleanupRecord;
  sessionJson(): SessionJson;
  /** The redacted audit summary, once the user asked for an export at close. */
  readonly auditExport: JsonValue | undefined;
  /** Stops as the process would: clears the reminder timer (the stored reminder stays). */
  stop(): void;
  /** Resolves once a reminder that fell due was sent and marked sent in the store. */
  settled(): Promise<void>;
}

type Session = StoredFlowSession<CleanupStep, unknown, HostData>;

/** Starts a new session: persists it and asks the first question. */
export async function startCleanupSession(options: CleanupHostOptions): Promise<CleanupHost> {
  const sessionId = options.generateId('sess_');
  const host = createHost(options, sessionId);
  const started = await host.chat.start(sessionId, { plan: null, execution: null, events: [] });
  if (!started.ok) throw failure(started);
  return host.handle;
}

/**
 * Resumes a session from its stored record (another process, or after a restart): the package
 * checks the record, a `close_pending` audit save is retried, a reminder not sent yet is armed
 * again, and the current question is asked again.
 */
export async function resumeCleanupSession(
  options: CleanupHostOptions,
  sessionId: string,
): Promise<CleanupHost> {
  const host = createHost(options, sessionId);
  const resumed = await host.chat.open(sessionId);
  if (!resumed.ok) {
    if (resumed.code === 'not_found') throw new Error(`No cleanup session ${sessionId} in the store`);
    if (resumed.code === 'callback_failed') throw failure(resumed);
    throw new Error(`Cannot resume ${sessionId} (${resumed.code}): ${resumed.message}`);
  }
  return host.handle;
}

/** A refused turn as the error the host's callers handle: a lost race, or the original failure. */
function failure(result: Extract<ChatFlowResult, { ok: false }>): Error {
  if (result.cause instanceof Error) return result.cause;
  if (result.code === 'conflict' || result.code === 'stale') return new SessionConflictError(result.id);
  return new Error(`${result.code}: ${result.message}`);
}

function createHost(options: CleanupHostOptions, sessionId: string) {
  const { clock, transcript, store } = options;
  let session: Session | undefined; // the handle the chat-flow host opened last
  let auditExport: JsonValue | undefined;
  const current = (): Session => {
    if (session === undefined) throw new Error(`Session ${sessionId} is not open`);
    return session;
  };

  const say = (speaker: 'bot' | 'host' | 'system', text: string, at: string = current().step): void =>
    transcript.say(speaker, at, text);
  /** Records a side effect for the audit trail and the transcript, under the step that caused it. */
  const note = (ctx: Ctx, kind: string, detail: string, at: string = current().step): void => {
    ctx.setData({ ...ctx.data, events: [...ctx.data.events, { at: clock.now(), kind, detail }] });
    say('host', detail, at);
  };
  const followUps = createFollowUps<Notification>({
    store,
    clock,
    keyPrefix: followUpKey(''),
    send: async ({ payload }) => {
      await options.notifier.send(payload);
      say('host', `follow-up reminder sent via ${payload.mode}: ${payload.text}`, 'close');
    },
  });

  const steps = createSteps({
    ...options,
    sessionId,
    followUps,
    say,
    note,
    exported: (summary) => {
      auditExport = summary;
    },
  });
  const { submit, after, execute, saveAudit } = steps;

  /** At the evidence step, the targets to justify one by one, numbered for the reply. */
  function showTargets(): void {
    const open = current();
    if (open.step === 'evidence') say('bot', `Targets: ${numberedTargets(scopeTargets(open.fields))}`);
  }

  function attach(opened: Session): void {
    session = opened;
    opened.on('save-failed', (e) => say('host', `session save failed (try ${e.attempt}): ${e.message}`));
    opened.on('submitted', ({ result }) => {
      transcript.say('flow', result.step, describeFlowResult(result));
      if (result.ok) {
        if (result.notice !== undefined) say('bot', result.notice, result.step);
      } else if (result.code === 'flow_done') {
        say('bot', 'This session is closed; start a new one for another cleanup.', 'done');
      } else {
        say('bot', result.message, result.step);
        if (result.step === 'evidence' && result.missingFields.length > 0) {
          say('bot', `Still missing: ${result.missingFields.join(', ')}`, result.step);
        }
        if (result.action === 'back' && opened.prompt !== undefined) {
          say('bot', opened.prompt);
          showTargets();
        }
        if (opened.mark === 'close_pending') say('host', 'session persisted as close_pending', 'close');
      }
    });
  }

  async function begin(ctx: Ctx, how: 'start' | 'resume'): Promise<false | undefined> {
    if (how === 'start') {
      note(ctx, 'start', `session ${sessionId} started`);
      const saved = await ctx.save();
      if (!saved.ok) throw refusedError(sessionId, saved);
      return undefined;
    }
    const { state, part, mark } = ctx.session.snapshot();
    const version = `version ${ctx.session.version}`;
    say('system', `restored ${sessionId} from the store (${version}): step ${state}, answer ${part + 1}`);
    const rearmed = await followUps.arm(sessionId);
    const due = rearmed.ok && new Date(rearmed.followUp.dueAt).toISOString();
    if (due) say('system', `follow-up reminder due ${due}: armed again`);
    if (!rearmed.ok && rearmed.code === 'outcome_unknown') {
      say('system', `follow-up reminder: ${rearmed.message}; not sent again until checked`);
    }
    if (mark === 'close_pending') {
      await saveAudit(ctx);
      return false;
    }
    if (state === 'execute' && part === 0 && ctx.data.plan !== null) {
      say('bot', effects.describePlan(ctx.data.plan, ctx.session.fields));
    }
    return undefined; // the chat-flow host asks the current question again
  }

  /** Reads a reply for the current step and submits it (the chat-flow host serializes the replies). */
  async function read(text: string, ctx: Ctx): Promise<void> {
    const step = ctx.session.step;
    transcript.say('user', step, text);
    if (step === 'done') return submit(ctx, {});
    const part = ctx.session.snapshot().part;
    if (step === 'execute' && part === 1) {
      const command = readExecuteCommand(text);
      if (command === 'retry') return execute(ctx);
      if (command === 'manual' && ctx.data.execution !== null)
        return submit(ctx, effects.manualFallback(ctx.data.execution));
      return say('bot', EXECUTE_COMMAND_HINT);
    }
    const answer = readAnswer(step, part, text, {
      draft: ctx.session.draft?.fields,
      planRef: ctx.data.plan?.id,
      targets: scopeTargets(ctx.session.fields),
    });
    if (step !== 'auth') return submit(ctx, answer);
    const check = (t: string) => note(ctx, 'auth', t);
    return submit(
      ctx,
      answer,
      await effects.checkCredential(options.vault, ctx.session.merged(answer), check),
    );
  }

  const chat = createChatFlowHost<CleanupStep, unknown, HostData>({
    sessions: createCleanupSessions(store, options),
    clock,
    attach,
    // the platform run and the notification are claimed by the write that completes their step
    claims: ({ step, part }) => (step === 'notify' || (step === 'execute' && part === 0) ? step : undefined),
    begin,
    read,
    after: (done, ctx) => after(ctx, done.step, done.part),
    ask: (prompt) => {
      say('bot', prompt);
      showTargets();
    },
  });

  chat.on('outcome-unknown', ({ name, claimedAt }) => {
    const at = new Date(claimedAt).toISOString();
    say(
      'system',
      `the ${name} claimed at ${at} never recorded its outcome: it is not run again until checked`,
    );
  });

  const handle: CleanupHost = {
    sessionId,
    get step() {
      return current().step;
    },
    get done() {
      return current().done;
    },
    get auditExport() {
      return auditExport;
    },
    record: () => current().record(),
    sessionJson: () => toSessionJson(current().record()),
    async reply(text, messageId) {
      const replied = await chat.reply(sessionId, text, messageId === undefined ? {} : { messageId });
      if (!replied.ok && replied.code !== 'duplicate') throw failure(replied);
    },
    stop() {
      followUps.close();
      chat.close();
    },
    settled: () => followUps.settled(),
  };
  return { chat, handle };
}
