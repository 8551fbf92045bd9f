// The host of one cleanup session: wiring for @parley/fsm's chat-flow host. `createChatFlowHost`
// owns the loop (one reply at a time per session, read → submit → the step's effects → the next
// question, re-asking on resume, effects claimed before they run); the stored flow session owns
// compare-and-set writes, drafts and the close_pending retry; `createFollowUps` owns the reminder.
// What is left here is this flow's readers, effects and wording.
import type { Clock, JsonValue, Store } from '@parley/core';
import {
  type ChatContext,
  type ChatFlowResult,
  createChatFlowHost,
  createFollowUps,
  describeFlowResult,
  type StoredFlowSession,
} from '@parley/fsm';
import type { CredentialVault, Notification, Notifier, PlatformAdapter } from './adapters.js';
import * as effects from './effects.js';
import type { CleanupStep } from './flow.js';
import {
  auditKey,
  createCleanupSessions,
  createReviewQueues,
  DEFAULT_SAVE_DELAYS_MS,
  followUpKey,
  refusedError,
  SessionConflictError,
  type Wait,
} from './persistence.js';
import { EXECUTE_COMMAND_HINT, type Fields, readAnswer, readExecuteCommand } from './replies.js';
import {
  type CleanupRecord,
  type HostData,
  type SessionJson,
  toAuditSummary,
  toSessionJson,
} from './session-json.js';
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
  reply(text: string): Promise<void>;
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
type Ctx = ChatContext<CleanupStep, unknown, HostData>;

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
    throw new Error(`Cannot resume ${sessionId} (${resumed.code}): ${resumed.reason}`);
  }
  return host.handle;
}

/** A refused turn as the error the host's callers handle: a lost race, or the original failure. */
function failure(result: Extract<ChatFlowResult, { ok: false }>): Error {
  if (result.cause instanceof Error) return result.cause;
  if (result.code === 'conflict' || result.code === 'stale') return new SessionConflictError(result.id);
  return new Error(`${result.code}: ${result.reason}`);
}

function createHost(options: CleanupHostOptions, sessionId: string) {
  const { clock, transcript, store } = options;
  const reviews = createReviewQueues(store, clock, () => options.generateId('rev_'));
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
  const plan = (ctx: Ctx) => {
    if (ctx.data.plan === null) throw new Error(`Session ${sessionId} has no execution plan`);
    return ctx.data.plan;
  };
  const left = (ctx: Ctx): string[] => effects.remainingTargets(plan(ctx), ctx.data.execution);
  const enqueue = async (
    ctx: Ctx,
    queue: string,
    item: Record<string, JsonValue>,
    text: string,
    at: string,
  ) =>
    note(ctx, 'review', `${text} → ${await reviews.enqueue(queue, { session_id: sessionId, ...item })}`, at);
  const followUps = createFollowUps<Notification>({
    store,
    clock,
    keyPrefix: followUpKey(''),
    send: async ({ payload }) => {
      await options.notifier.send(payload);
      say('host', `follow-up reminder sent via ${payload.mode}: ${payload.text}`, 'close');
    },
  });

  function attach(opened: Session): void {
    session = opened;
    opened.on('save-failed', (e) => say('host', `session save failed (try ${e.attempt}): ${e.reason}`));
    opened.on('submitted', ({ result }) => {
      transcript.say('flow', result.step, describeFlowResult(result));
      if (result.ok) {
        if (result.notice !== undefined) say('bot', result.notice, result.step);
      } else if (result.code === 'flow_done') {
        say('bot', 'This session is closed; start a new one for another cleanup.', 'done');
      } else {
        say('bot', result.message, result.step);
        if (result.action === 'back' && opened.prompt !== undefined) say('bot', opened.prompt);
        if (opened.mark === 'close_pending') say('host', 'session persisted as close_pending', 'close');
      }
    });
  }

  async function persist(ctx: Ctx): Promise<void> {
    const saved = await ctx.save();
    if (!saved.ok) throw refusedError(sessionId, saved);
  }

  /** Submits (and writes) an answer; the chat-flow host runs `after` when it completes a step. */
  async function submit(ctx: Ctx, fields: Fields, transient?: Fields): Promise<void> {
    const before = ctx.session.snapshot();
    const written = await ctx.submit(fields, transient && { transient });
    if (!written.ok) throw refusedError(sessionId, written);
    const { result } = written;
    for (const { queue, submitted, reason } of result.snapshot.reviews.slice(before.reviews.length)) {
      const item = { step: before.state, submitted, reason };
      await enqueue(ctx, queue, item, `queued for manual review (${queue})`, before.state);
    }
    if (!result.ok && before.reviews.length !== result.snapshot.reviews.length) await persist(ctx);
  }

  /** The side effect a completed step (or part) allows, then the next question. */
  async function after(ctx: Ctx, done: CleanupStep, part: number): Promise<void> {
    const fields = ctx.session.fields as Record<string, Fields | undefined>;
    if (done === 'platform-scope') {
      const scope = fields[done] as { targets: string[]; unresolved: { input: string; reason: string }[] };
      note(ctx, 'scope', `${scope.targets.length} normalised target(s): ${scope.targets.join(' ')}`, done);
      for (const item of scope.unresolved) {
        await enqueue(ctx, 'unresolved-targets', item, `unresolved "${item.input}" (${item.reason})`, done);
      }
    }
    if (done === 'export-decision') {
      const created = effects.createPlan(options.generateId('plan_'), fields);
      ctx.setData({ ...ctx.data, plan: created });
      const what = `${created.action} × ${created.targets.length}${created.exportFirst ? ' after export' : ''}`;
      note(ctx, 'plan', `created ${created.id}: ${what}`, done);
      say('bot', effects.describePlan(created, fields));
    }
    const manual = fields.execute?.fallback === 'manual' ? left(ctx) : [];
    if (done === 'execute') {
      for (const target of manual) {
        await enqueue(ctx, 'manual-execution', { target }, `${target} handed to manual execution`, done);
      }
    }
    if (done === 'notify') {
      const mode = String(fields.notify?.notify_mode);
      const notify = () => effects.notifyResult(options.notifier, mode, sessionId, ctx.data, manual);
      const sent = await ctx.effect('notify', notify);
      if (sent !== undefined) note(ctx, 'notify', `sent via ${mode}: ${sent}`, done);
    }
    await persist(ctx);
    await ctx.ask();
    if (done === 'execute' && part === 0) await execute(ctx);
    if (done === 'close' && part === 0) await saveAudit(ctx);
  }

  /** Runs the plan on the platform (claimed first: never run twice by a redelivery or a restart). */
  async function execute(ctx: Ctx): Promise<void> {
    const auth = ctx.session.fields.auth ?? {};
    const credential: Record<string, string> = {};
    if (typeof auth.credential_ref === 'string') credential.credential_ref = auth.credential_ref;
    if (typeof auth.session_proof === 'string') credential.session_proof = auth.session_proof;
    const run = (text: string) => note(ctx, 'execute', text);
    const ran = await ctx.effect('execute', () =>
      effects.runExecution(options.platform, plan(ctx), left(ctx), ctx.data.execution, credential, run),
    );
    const { status, ...state } = ran;
    ctx.setData({ ...ctx.data, execution: state });
    const { attempts, completed, errors } = state;
    await submit(ctx, {
      adapter_status: status,
      attempt: attempts,
      completed: [...completed],
      errors: [...errors],
    });
  }

  /** The audit save at close: retried on the clock by the stored session while it fails (close_pending). */
  async function saveAudit(ctx: Ctx): Promise<void> {
    const tries = (options.saveDelaysMs ?? DEFAULT_SAVE_DELAYS_MS).length + 1;
    const record = (): CleanupRecord => ({ ...ctx.session.record(), data: ctx.data });
    const outcome = await ctx.session.perform(async (n) => {
      try {
        await store.set(auditKey(sessionId), toAuditSummary(record(), clock.now()));
        note(ctx, 'audit', `audit summary saved as ${auditKey(sessionId)}`);
        return { audit_saved: true, audit_ref: auditKey(sessionId) };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        note(ctx, 'audit', `audit save failed (try ${n} of ${tries}): ${why}`);
        return { audit_saved: false };
      }
    });
    if (!outcome.ok && outcome.code !== 'retries_exhausted') throw refusedError(sessionId, outcome);
    if (!outcome.ok) {
      note(ctx, 'audit', 'still close_pending: the save is retried when the session is resumed');
      return persist(ctx);
    }
    if (ctx.session.done) say('bot', 'Session closed. Thank you: the audit summary is kept for review.');
    if (ctx.session.fields.close?.audit_export === true) auditExport = toAuditSummary(record(), clock.now());
    const planned = effects.planReminder(sessionId, ctx.session.fields, ctx.data);
    if (planned !== undefined) {
      const dueAt = clock.now() + planned.delayMs;
      const scheduled = await followUps.schedule(sessionId, dueAt, planned.reminder);
      if (scheduled.ok)
        note(ctx, 'followup', `reminder scheduled for ${new Date(dueAt).toISOString()}`, 'close');
    }
    await persist(ctx);
  }

  async function begin(ctx: Ctx, how: 'start' | 'resume'): Promise<false | undefined> {
    if (how === 'start') {
      note(ctx, 'start', `session ${sessionId} started`);
      await persist(ctx);
      return undefined;
    }
    const { state, part, mark } = ctx.session.snapshot();
    const version = `version ${ctx.session.version}`;
    say('system', `restored ${sessionId} from the store (${version}): step ${state}, answer ${part + 1}`);
    const rearmed = await followUps.arm(sessionId);
    const due = rearmed.ok && new Date(rearmed.followUp.dueAt).toISOString();
    if (due) say('system', `follow-up reminder due ${due}: armed again`);
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
    ask: (prompt) => say('bot', prompt),
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
    async reply(text) {
      const replied = await chat.reply(sessionId, text);
      if (!replied.ok) throw failure(replied);
    },
    stop() {
      followUps.close();
      chat.close();
    },
    settled: () => followUps.settled(),
  };
  return { chat, handle };
}
