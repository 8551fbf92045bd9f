// The host of one cleanup session: reads each reply into fields, lets the flow decide, performs the
// side effect the flow allows and tells the user. The session itself — compare-and-set writes after
// every step, drafts of half-answered steps, the close_pending retry on the clock, resume after a
// restart — is a stored flow session of @parley/fsm.
import type { JsonValue } from '@parley/core';
import type { StoredFlowSession } from '@parley/fsm';
import {
  checkCredential,
  createPlan,
  manualFallback,
  describePlan,
  notifyResult,
  remainingTargets,
  runExecution,
} from './effects.js';
import type { CleanupStep } from './flow.js';
import type { CleanupHost, CleanupHostOptions } from './host-types.js';
import {
  createCleanupSessions,
  createReviewQueues,
  DEFAULT_SAVE_DELAYS_MS,
  refusedError,
} from './persistence.js';
import { redactJson } from './redact.js';
import { createReminderTimer, planReminder } from './reminder.js';
import { type Fields, readAnswer, readExecuteCommand } from './replies.js';
import { reportSession } from './report.js';
import {
  type ExecutionPlan,
  type HostData,
  toAuditSummary,
  toSessionJson,
  toSessionRecord,
} from './session-json.js';

export type { CleanupHost, CleanupHostOptions } from './host-types.js';

type Session = StoredFlowSession<CleanupStep, unknown, HostData>;

/** Starts a new session: persists it and asks the first question. */
export async function startCleanupSession(options: CleanupHostOptions): Promise<CleanupHost> {
  const started = await createCleanupSessions(options.store, options).start(options.generateId('sess_'), {
    data: { plan: null, execution: null, events: [], reminder: null },
  });
  if (!started.ok) throw refusedError(started.reason, started);
  const host = createHost(options, started.session);
  await host.begin();
  return host;
}

/**
 * Resumes a session from its stored record (another process, or after a restart): the package
 * checks the record, a `close_pending` audit save is retried, and the current question is asked again.
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
  const { clock, transcript, platform } = options;
  const reviews = createReviewQueues(options.store, () => options.generateId('rev_'));
  const sessionId = session.id;
  let data: HostData = session.data;
  let auditExport: JsonValue | undefined;

  const step = (): string => session.step;
  const bot = (text: string): void => transcript.say('bot', step(), text);
  const sayPrompt = (): void => {
    if (session.prompt !== undefined) bot(session.prompt);
  };
  /** Records a side effect for the audit trail and the transcript, under the step that caused it. */
  const note = (kind: string, detail: string, at: string = step()): void => {
    data = { ...data, events: [...data.events, { at: clock.now(), kind, detail }] };
    transcript.say('host', at, detail);
  };
  const currentPlan = (): ExecutionPlan => {
    if (data.plan === null) throw new Error(`Session ${sessionId} has no execution plan`);
    return data.plan;
  };
  const enqueue = async (queue: string, item: Record<string, JsonValue>, text: string, at: string) => {
    const stamped = { session_id: sessionId, ...item, at: new Date(clock.now()).toISOString() };
    const key = await reviews.enqueue(queue, redactJson(stamped));
    note('review', `${text} → ${key}`, at);
  };
  const reminders = createReminderTimer({
    clock,
    notifier: options.notifier,
    markSent: async (sent) => {
      note('followup', `follow-up reminder sent via ${sent.mode}: ${sent.text}`, 'close');
      data = { ...data, reminder: sent };
      await persist();
    },
  });
  const scheduleReminder = (): void => {
    const reminder = planReminder(sessionId, session.fields, data, clock.now());
    if (reminder === undefined || (data.reminder ?? null) !== null) return;
    data = { ...data, reminder };
    note('followup', `reminder scheduled for ${new Date(reminder.dueAt).toISOString()}`, 'close');
  };
  reportSession(session, transcript, sayPrompt);

  async function persist(): Promise<void> {
    const saved = await session.update(data);
    if (!saved.ok) throw refusedError(sessionId, saved);
  }

  /** Submits (and writes) an answer; what the flow decided is reported by the `submitted` listener. */
  async function submit(fields: Fields, transient?: Fields): Promise<void> {
    const before = session.snapshot();
    const written = await session.submit(fields, { data, ...(transient === undefined ? {} : { transient }) });
    if (!written.ok) throw refusedError(sessionId, written);
    const { result } = written;
    for (const { queue, submitted, reason } of result.snapshot.reviews.slice(before.reviews.length)) {
      await enqueue(
        queue,
        { step: before.state, submitted, reason },
        `queued for manual review (${queue})`,
        before.state,
      );
    }
    if (result.ok) await after(before.state as CleanupStep, before.part);
    else if (before.reviews.length !== result.snapshot.reviews.length) await persist();
  }

  /** The side effect a completed step (or part) allows, then the next question. */
  async function after(done: CleanupStep, part: number): Promise<void> {
    const fields = session.fields as Record<string, Fields | undefined>;
    if (done === 'platform-scope') {
      const scope = fields['platform-scope'] as {
        targets: string[];
        unresolved: { input: string; reason: string }[];
      };
      note('scope', `${scope.targets.length} normalised target(s): ${scope.targets.join(' ')}`, done);
      for (const item of scope.unresolved) {
        await enqueue('unresolved-targets', item, `unresolved "${item.input}" (${item.reason})`, done);
      }
    }
    if (done === 'export-decision') {
      const plan = createPlan(options.generateId('plan_'), fields);
      data = { ...data, plan };
      note(
        'plan',
        `created ${plan.id}: ${plan.action} × ${plan.targets.length}${plan.exportFirst ? ' after export' : ''}`,
        done,
      );
      bot(describePlan(plan, (fields['platform-scope']?.platforms as string[]) ?? []));
    }
    if (done === 'execute' && fields.execute?.fallback === 'manual') {
      for (const target of remainingTargets(currentPlan(), data.execution)) {
        await enqueue('manual-execution', { target }, `${target} handed to manual execution`, done);
      }
    }
    if (done === 'notify') {
      const mode = String(fields.notify?.notify_mode);
      const manual =
        fields.execute?.fallback === 'manual' ? remainingTargets(currentPlan(), data.execution) : [];
      const sent = await notifyResult(
        options.notifier,
        mode,
        sessionId,
        currentPlan(),
        data.execution,
        manual,
      );
      if (sent !== undefined) note('notify', `sent via ${mode}: ${sent}`, done);
    }
    await persist();
    sayPrompt();
    if (done === 'execute' && part === 0) await execute(remainingTargets(currentPlan(), data.execution));
    if (done === 'close' && part === 0) await saveAudit();
  }

  async function execute(targets: readonly string[]): Promise<void> {
    const auth = session.fields.auth ?? {};
    const credential: Record<string, string> = {};
    if (typeof auth.credential_ref === 'string') credential.credential_ref = auth.credential_ref;
    if (typeof auth.session_proof === 'string') credential.session_proof = auth.session_proof;
    const ran = await runExecution(platform, currentPlan(), targets, data.execution, credential, (text) =>
      note('execute', text),
    );
    const { status, ...state } = ran;
    data = { ...data, execution: state };
    await submit({
      adapter_status: status,
      attempt: state.attempts,
      completed: [...state.completed],
      errors: [...state.errors],
    });
  }

  /** The audit save at close: retried on the clock by the stored session while it fails (close_pending). */
  async function saveAudit(): Promise<void> {
    const tries = (options.saveDelaysMs ?? DEFAULT_SAVE_DELAYS_MS).length + 1;
    const outcome = await session.perform(async (n) => {
      try {
        const ref = await reviews.saveAudit(sessionId, toAuditSummary(record(), clock.now()));
        note('audit', `audit summary saved as ${ref}`);
        return { audit_saved: true, audit_ref: ref };
      } catch (error) {
        note(
          'audit',
          `audit save failed (try ${n} of ${tries}): ${error instanceof Error ? error.message : String(error)}`,
        );
        return { audit_saved: false };
      }
    });
    if (!outcome.ok && outcome.code !== 'retries_exhausted') throw refusedError(sessionId, outcome);
    if (!outcome.ok) {
      note('audit', 'still close_pending: the save is retried when the session is resumed');
      return persist();
    }
    if (session.done) bot('Session closed. Thank you: the audit summary is kept for review.');
    if (session.fields.close?.audit_export === true) auditExport = toAuditSummary(record(), clock.now());
    scheduleReminder();
    await persist();
    if (data.reminder != null) reminders.arm(data.reminder);
  }

  const record = () => toSessionRecord({ ...session.record(), data });

  async function executeCommand(text: string): Promise<void> {
    const command = readExecuteCommand(text);
    if (command === 'retry') return execute(remainingTargets(currentPlan(), data.execution));
    if (command === 'manual' && data.execution !== null) return submit(manualFallback(data.execution));
    bot(
      'Reply "retry" to run the remaining targets again, or "manual" to hand them to the manual-execution queue.',
    );
  }

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
    stop: reminders.stop,
    settled: () => reminders.settled(),
    async resume() {
      const snapshot = session.snapshot();
      transcript.say(
        'system',
        step(),
        `restored ${sessionId} from the store (version ${session.version}): step ${snapshot.state}, answer ${snapshot.part + 1}`,
      );
      if (data.reminder?.sentAt === null) {
        transcript.say(
          'system',
          step(),
          `follow-up reminder due ${new Date(data.reminder.dueAt).toISOString()}: armed again`,
        );
        reminders.arm(data.reminder);
      }
      if (snapshot.mark === 'close_pending') return saveAudit();
      if (snapshot.state === 'execute' && snapshot.part === 0 && data.plan !== null) {
        bot(describePlan(data.plan, (session.fields['platform-scope']?.platforms as string[]) ?? []));
      }
      sayPrompt();
    },
    async reply(text) {
      const current = session.step;
      transcript.say('user', current, text);
      if (current === 'done') return submit({});
      const part = session.snapshot().part;
      if (current === 'execute' && part === 1) return executeCommand(text);
      const answer = readAnswer(current, part, text, {
        draft: session.draft?.fields,
        planRef: data.plan?.id,
      });
      if (current !== 'auth') return submit(answer);
      const checked = await checkCredential(options.vault, session.merged(answer), (t) => note('auth', t));
      return submit(answer, checked.check === undefined ? undefined : { check: checked.check });
    },
  };
}
