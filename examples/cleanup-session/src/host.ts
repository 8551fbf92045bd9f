// The host of one cleanup session: reads each reply into fields, lets the flow decide, performs the
// side effect the flow allows and tells the user. The mechanisms come from @parley/fsm: the stored
// flow session (compare-and-set writes after every step, drafts of half-answered steps, the
// close_pending retry on the clock, resume after a restart), the follow-up reminder
// (`createFollowUps`), the verdict lines (`describeFlowResult`) and the audit trail (`toFlowAudit`).
import type { Clock, JsonValue, Store } from '@parley/core';
import { createFollowUps, describeFlowResult, type StoredFlowSession } from '@parley/fsm';
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

/** Starts a new session: persists it and asks the first question. */
export async function startCleanupSession(options: CleanupHostOptions): Promise<CleanupHost> {
  const started = await createCleanupSessions(options.store, options).start(options.generateId('sess_'), {
    data: { plan: null, execution: null, events: [] },
  });
  if (!started.ok) throw refusedError(started.reason, started);
  const host = createHost(options, started.session);
  await host.begin();
  return host;
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
  const resumed = await createCleanupSessions(options.store, options).resume(sessionId);
  if (!resumed.ok) {
    throw resumed.code === 'not_found'
      ? new Error(`No cleanup session ${sessionId} in the store`)
      : new Error(`Cannot resume ${sessionId} (${resumed.code}): ${resumed.reason}`);
  }
  const host = createHost(options, resumed.session);
  await host.resume();
  return host;
}

function createHost(
  options: CleanupHostOptions,
  session: Session,
): CleanupHost & { begin(): Promise<void>; resume(): Promise<void> } {
  const { clock, transcript, store } = options;
  const reviews = createReviewQueues(store, clock, () => options.generateId('rev_'));
  const sessionId = session.id;
  let data: HostData = session.data;
  let auditExport: JsonValue | undefined;

  const say = (speaker: 'bot' | 'host' | 'system', text: string, at: string = session.step): void =>
    transcript.say(speaker, at, text);
  const sayPrompt = (): void => {
    if (session.prompt !== undefined) say('bot', session.prompt);
  };
  /** Records a side effect for the audit trail and the transcript, under the step that caused it. */
  const note = (kind: string, detail: string, at: string = session.step): void => {
    data = { ...data, events: [...data.events, { at: clock.now(), kind, detail }] };
    say('host', detail, at);
  };
  const plan = () => {
    if (data.plan === null) throw new Error(`Session ${sessionId} has no execution plan`);
    return data.plan;
  };
  const left = (): string[] => effects.remainingTargets(plan(), data.execution);
  const enqueue = async (queue: string, item: Record<string, JsonValue>, text: string, at: string) =>
    note('review', `${text} → ${await reviews.enqueue(queue, { session_id: sessionId, ...item })}`, at);
  const followUps = createFollowUps<Notification>({
    store,
    clock,
    keyPrefix: followUpKey(''),
    send: async ({ payload }) => {
      await options.notifier.send(payload);
      say('host', `follow-up reminder sent via ${payload.mode}: ${payload.text}`, 'close');
    },
  });

  session.on('save-failed', (e) => say('host', `session save failed (try ${e.attempt}): ${e.reason}`));
  session.on('submitted', ({ result }) => {
    transcript.say('flow', result.step, describeFlowResult(result));
    if (result.ok) {
      if (result.notice !== undefined) say('bot', result.notice, result.step);
    } else if (result.code === 'flow_done') {
      say('bot', 'This session is closed; start a new one for another cleanup.', 'done');
    } else {
      say('bot', result.message, result.step);
      if (result.action === 'back') sayPrompt();
      if (session.mark === 'close_pending') say('host', 'session persisted as close_pending', 'close');
    }
  });

  async function persist(): Promise<void> {
    const saved = await session.update(data);
    if (!saved.ok) throw refusedError(sessionId, saved);
  }

  /** Submits (and writes) an answer; the `submitted` listener reports what the flow decided. */
  async function submit(fields: Fields, transient?: Fields): Promise<void> {
    const before = session.snapshot();
    const written = await session.submit(fields, { data, ...(transient && { transient }) });
    if (!written.ok) throw refusedError(sessionId, written);
    const { result } = written;
    for (const { queue, submitted, reason } of result.snapshot.reviews.slice(before.reviews.length)) {
      const item = { step: before.state, submitted, reason };
      await enqueue(queue, item, `queued for manual review (${queue})`, before.state);
    }
    if (result.ok) await after(before.state as CleanupStep, before.part);
    else if (before.reviews.length !== result.snapshot.reviews.length) await persist();
  }

  /** The side effect a completed step (or part) allows, then the next question. */
  async function after(done: CleanupStep, part: number): Promise<void> {
    const fields = session.fields as Record<string, Fields | undefined>;
    if (done === 'platform-scope') {
      const scope = fields[done] as { targets: string[]; unresolved: { input: string; reason: string }[] };
      note('scope', `${scope.targets.length} normalised target(s): ${scope.targets.join(' ')}`, done);
      for (const item of scope.unresolved) {
        await enqueue('unresolved-targets', item, `unresolved "${item.input}" (${item.reason})`, done);
      }
    }
    if (done === 'export-decision') {
      const created = effects.createPlan(options.generateId('plan_'), fields);
      data = { ...data, plan: created };
      const what = `${created.action} × ${created.targets.length}${created.exportFirst ? ' after export' : ''}`;
      note('plan', `created ${created.id}: ${what}`, done);
      say('bot', effects.describePlan(created, fields));
    }
    const manual = fields.execute?.fallback === 'manual' ? left() : [];
    if (done === 'execute') {
      for (const target of manual) {
        await enqueue('manual-execution', { target }, `${target} handed to manual execution`, done);
      }
    }
    if (done === 'notify') {
      const mode = String(fields.notify?.notify_mode);
      const sent = await effects.notifyResult(options.notifier, mode, sessionId, data, manual);
      if (sent !== undefined) note('notify', `sent via ${mode}: ${sent}`, done);
    }
    await persist();
    sayPrompt();
    if (done === 'execute' && part === 0) await execute();
    if (done === 'close' && part === 0) await saveAudit();
  }

  async function execute(): Promise<void> {
    const auth = session.fields.auth ?? {};
    const credential: Record<string, string> = {};
    if (typeof auth.credential_ref === 'string') credential.credential_ref = auth.credential_ref;
    if (typeof auth.session_proof === 'string') credential.session_proof = auth.session_proof;
    const run = (text: string) => note('execute', text);
    const ran = await effects.runExecution(options.platform, plan(), left(), data.execution, credential, run);
    const { status, ...state } = ran;
    data = { ...data, execution: state };
    const { attempts, completed, errors } = state;
    await submit({
      adapter_status: status,
      attempt: attempts,
      completed: [...completed],
      errors: [...errors],
    });
  }

  /** The audit save at close: retried on the clock by the stored session while it fails (close_pending). */
  async function saveAudit(): Promise<void> {
    const tries = (options.saveDelaysMs ?? DEFAULT_SAVE_DELAYS_MS).length + 1;
    const outcome = await session.perform(async (n) => {
      try {
        await store.set(auditKey(sessionId), toAuditSummary(record(), clock.now()));
        note('audit', `audit summary saved as ${auditKey(sessionId)}`);
        return { audit_saved: true, audit_ref: auditKey(sessionId) };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        note('audit', `audit save failed (try ${n} of ${tries}): ${why}`);
        return { audit_saved: false };
      }
    });
    if (!outcome.ok && outcome.code !== 'retries_exhausted') throw refusedError(sessionId, outcome);
    if (!outcome.ok) {
      note('audit', 'still close_pending: the save is retried when the session is resumed');
      return persist();
    }
    if (session.done) say('bot', 'Session closed. Thank you: the audit summary is kept for review.');
    if (session.fields.close?.audit_export === true) auditExport = toAuditSummary(record(), clock.now());
    const planned = effects.planReminder(sessionId, session.fields, data);
    if (planned !== undefined) {
      const dueAt = clock.now() + planned.delayMs;
      const scheduled = await followUps.schedule(sessionId, dueAt, planned.reminder);
      if (scheduled.ok) note('followup', `reminder scheduled for ${new Date(dueAt).toISOString()}`, 'close');
    }
    await persist();
  }

  const record = (): CleanupRecord => ({ ...session.record(), data });

  return {
    sessionId,
    get step() {
      return session.step;
    },
    get done() {
      return session.done;
    },
    get auditExport() {
      return auditExport;
    },
    record,
    sessionJson: () => toSessionJson(record()),
    async begin() {
      note('start', `session ${sessionId} started`);
      await persist();
      sayPrompt();
    },
    stop: () => followUps.close(),
    settled: () => followUps.settled(),
    async resume() {
      const { state, part, mark } = session.snapshot();
      const version = `version ${session.version}`;
      say('system', `restored ${sessionId} from the store (${version}): step ${state}, answer ${part + 1}`);
      const rearmed = await followUps.arm(sessionId);
      const due = rearmed.ok && new Date(rearmed.followUp.dueAt).toISOString();
      if (due) say('system', `follow-up reminder due ${due}: armed again`);
      if (mark === 'close_pending') return saveAudit();
      if (state === 'execute' && part === 0 && data.plan !== null) {
        say('bot', effects.describePlan(data.plan, session.fields));
      }
      sayPrompt();
    },
    async reply(text) {
      const current = session.step;
      transcript.say('user', current, text);
      if (current === 'done') return submit({});
      const part = session.snapshot().part;
      if (current === 'execute' && part === 1) {
        const command = readExecuteCommand(text);
        if (command === 'retry') return execute();
        if (command === 'manual' && data.execution !== null)
          return submit(effects.manualFallback(data.execution));
        return say('bot', EXECUTE_COMMAND_HINT);
      }
      const context = { draft: session.draft?.fields, planRef: data.plan?.id };
      const answer = readAnswer(current, part, text, context);
      if (current !== 'auth') return submit(answer);
      const check = (t: string) => note('auth', t);
      return submit(answer, await effects.checkCredential(options.vault, session.merged(answer), check));
    },
  };
}
