// The host of one cleanup session: reads each reply into fields, lets the flow decide, performs the
// side effect the flow allows, tells the user, and persists the record after every step.
import type { JsonValue } from '@parley/core';
import { createFlowSession, type FlowSession, type FlowSubmitResult } from '@parley/fsm';
import {
  checkCredential,
  createPlan,
  describePlan,
  notifyResult,
  remainingTargets,
  runExecution,
} from './effects.js';
import type { CleanupHost, CleanupHostOptions } from './host-types.js';
import { type CleanupStep, cleanupFlow } from './flow.js';
import { createSessionRepository, SessionConflictError, withRetry } from './persistence.js';
import { redactJson } from './redact.js';
import { type Fields, mergeDraft, readAnswer, readExecuteCommand, SLOT_FILLING_STEPS } from './replies.js';
import { type ExecutionPlan, type SessionRecord, toAuditSummary, toSessionJson } from './session-json.js';
import { reportResult } from './report.js';

export type { CleanupHost, CleanupHostOptions } from './host-types.js';

export const DEFAULT_SAVE_DELAYS_MS = [1_000, 2_000, 4_000] as const;

/** Starts a new session: persists it and asks the first question. */
export async function startCleanupSession(options: CleanupHostOptions): Promise<CleanupHost> {
  const sessionId = options.generateId('sess_');
  const session = createFlowSession(cleanupFlow, { clock: options.clock });
  const empty = { session_id: sessionId, draft: null, plan: null, execution: null, events: [] };
  const host = createHost(options, session, empty, null);
  await host.begin();
  return host;
}

/**
 * Resumes a session from its persisted record (another process, or after a restart): the flow
 * snapshot is checked by `createFlowSession`, a `close_pending` save is retried, and the current
 * question is asked again.
 */
export async function resumeCleanupSession(
  options: CleanupHostOptions,
  sessionId: string,
): Promise<CleanupHost> {
  const repo = createSessionRepository(options.store, () => options.generateId('rev_'));
  const loaded = await repo.load(sessionId);
  if (loaded === undefined) throw new Error(`No cleanup session ${sessionId} in the store`);
  const session = createFlowSession(cleanupFlow, { clock: options.clock, snapshot: loaded.record.flow });
  const host = createHost(options, session, loaded.record, loaded.version);
  await host.resume();
  return host;
}

type Base = Omit<SessionRecord, 'flow'>;

function createHost(
  options: CleanupHostOptions,
  session: FlowSession<CleanupStep, unknown>,
  base: Base,
  loadedVersion: number | null,
): CleanupHost & { begin(): Promise<void>; resume(): Promise<void> } {
  const { clock, transcript, platform } = options;
  const repo = createSessionRepository(options.store, () => options.generateId('rev_'));
  const delays = options.saveDelaysMs ?? DEFAULT_SAVE_DELAYS_MS;
  let version = loadedVersion;
  let { draft, plan, execution } = base;
  const events = [...base.events];
  let auditExport: JsonValue | undefined;
  const sessionId = base.session_id;

  const step = (): string => session.step;
  const record = (): SessionRecord => ({
    session_id: sessionId,
    flow: session.snapshot(),
    draft,
    plan,
    execution,
    events: [...events],
  });
  const bot = (text: string): void => transcript.say('bot', step(), text);
  /** Records a side effect for the audit trail and the transcript, under the step that caused it. */
  const note = (kind: string, detail: string, at: string = step()): void => {
    events.push({ at: clock.now(), kind, detail });
    transcript.say('host', at, detail);
  };

  /** The plan exists from export-decision on; anything later without one is a bug. */
  const currentPlan = (): ExecutionPlan => {
    if (plan === null) throw new Error(`Session ${sessionId} has no execution plan`);
    return plan;
  };
  /** Adds an item (redacted) to a manual-review queue in the store. */
  const enqueue = async (queue: string, item: Record<string, JsonValue>, text: string, at: string) => {
    const stamped = { session_id: sessionId, ...item, at: new Date(clock.now()).toISOString() };
    const key = await repo.enqueueReview(queue, redactJson(stamped));
    note('review', `${text} → ${key}`, at);
  };

  async function persist(): Promise<void> {
    const current = record();
    version = await withRetry(() => repo.save(current, version), {
      delaysMs: delays,
      wait: options.wait,
      retryable: (error) => !(error instanceof SessionConflictError),
      onFailure: (error, n) =>
        transcript.say('host', step(), `session save failed (try ${n}): ${message(error)}`),
    });
  }

  function sayPrompt(): void {
    const prompt = session.prompt;
    if (prompt !== undefined) bot(prompt);
  }

  async function submit(fields: Fields): Promise<FlowSubmitResult<CleanupStep, unknown>> {
    const before = session.snapshot();
    const result = session.submit(fields);
    const moved = reportResult(transcript, result, sayPrompt);
    const name = before.state as CleanupStep;
    const keepDraft =
      !moved && SLOT_FILLING_STEPS.includes(name) && result.ok === false && 'action' in result;
    draft = keepDraft && result.action !== 'back' ? { step: name, fields: withoutCheck(fields) } : null;
    for (const { queue, submitted, reason } of result.snapshot.reviews.slice(before.reviews.length)) {
      await enqueue(queue, { step: name, submitted, reason }, `queued for manual review (${queue})`, name);
    }
    await persist();
    if (moved) await after(name, before.part);
    return result;
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
      plan = createPlan(options.generateId('plan_'), fields);
      note(
        'plan',
        `created ${plan.id}: ${plan.action} × ${plan.targets.length}${plan.exportFirst ? ' after export' : ''}`,
        done,
      );
      await persist();
      bot(describePlan(plan, (fields['platform-scope']?.platforms as string[]) ?? []));
    }
    if (done === 'execute' && fields.execute?.fallback === 'manual') {
      for (const target of remainingTargets(currentPlan(), execution)) {
        await enqueue('manual-execution', { target }, `${target} handed to manual execution`, done);
      }
    }
    if (done === 'notify') {
      const mode = String(fields.notify?.notify_mode);
      const manual = fields.execute?.fallback === 'manual' ? remainingTargets(currentPlan(), execution) : [];
      const sent = await notifyResult(options.notifier, mode, sessionId, currentPlan(), execution, manual);
      if (sent !== undefined) note('notify', `sent via ${mode}: ${sent}`, done);
      await persist();
    }
    sayPrompt();
    if (done === 'execute' && part === 0) await execute(remainingTargets(currentPlan(), execution));
    if (done === 'close' && part === 0) await saveAudit();
    if (done === 'close' && part === 1 && session.done)
      bot('Session closed. Thank you: the audit summary is kept for review.');
  }

  async function execute(targets: readonly string[]): Promise<void> {
    const auth = session.fields.auth ?? {};
    const credential: Record<string, string> = {};
    if (typeof auth.credential_ref === 'string') credential.credential_ref = auth.credential_ref;
    if (typeof auth.session_proof === 'string') credential.session_proof = auth.session_proof;
    const log = (text: string): void => note('execute', text);
    const ran = await runExecution(platform, currentPlan(), targets, execution, credential, log);
    const { status, ...state } = ran;
    execution = state;
    await submit({
      adapter_status: status,
      attempt: state.attempts,
      completed: [...state.completed],
      errors: [...state.errors],
    });
  }

  async function saveAudit(): Promise<void> {
    const tries = delays.length + 1;
    for (let n = 1; n <= tries; n++) {
      try {
        const ref = await repo.saveAudit(sessionId, toAuditSummary(record(), clock.now()));
        note('audit', `audit summary saved as ${ref}`);
        await submit({ audit_saved: true, audit_ref: ref });
        if (session.fields.close?.audit_export === true) auditExport = toAuditSummary(record(), clock.now());
        if (session.fields.close?.followup_preference?.toString().startsWith('remind_in_')) {
          note(
            'followup',
            `follow-up reminder recorded: ${String(session.fields.close.followup_preference)}`,
            'close',
          );
          await persist();
        }
        return;
      } catch (error) {
        note('audit', `audit save failed (try ${n} of ${tries}): ${message(error)}`);
        await submit({ audit_saved: false });
        transcript.say('host', 'close', `session persisted as ${toSessionJson(record()).state}`);
        if (n < tries) await options.wait(delays[n - 1] as number);
      }
    }
    note('audit', 'still close_pending: the save is retried when the session is resumed');
    await persist();
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
    async resume() {
      const snapshot = session.snapshot();
      transcript.say(
        'system',
        step(),
        `restored ${sessionId} from the store (version ${version}): step ${snapshot.state}, answer ${snapshot.part + 1}`,
      );
      if (snapshot.mark === 'close_pending') return saveAudit();
      if (snapshot.state === 'execute' && snapshot.part === 0 && plan !== null) {
        bot(describePlan(plan, (session.fields['platform-scope']?.platforms as string[]) ?? []));
      }
      sayPrompt();
    },
    async reply(text) {
      const current = session.step;
      transcript.say('user', current, text);
      if (current === 'done') {
        await submit({});
        return;
      }
      const part = session.snapshot().part;
      if (current === 'execute' && part === 1) return executeCommand(text);
      const previous = draft?.step === current ? draft.fields : undefined;
      let fields = readAnswer(current, part, text, { draft: previous, planRef: plan?.id });
      if (SLOT_FILLING_STEPS.includes(current)) fields = mergeDraft(previous, fields);
      if (current === 'auth')
        fields = await checkCredential(options.vault, fields, (text) => note('auth', text));
      await submit(fields);
    },
  };

  async function executeCommand(text: string): Promise<void> {
    const command = readExecuteCommand(text);
    if (command === 'retry') return execute(remainingTargets(currentPlan(), execution));
    if (command === 'manual' && execution !== null) {
      const { attempts, completed, errors } = execution;
      const status = completed.length === 0 ? 'failed' : 'partial';
      await submit({
        adapter_status: status,
        attempt: attempts,
        completed: [...completed],
        errors: [...errors],
        fallback: 'manual',
      });
      return;
    }
    bot(
      'Reply "retry" to run the remaining targets again, or "manual" to hand them to the manual-execution queue.',
    );
  }
}

function withoutCheck(fields: Fields): Fields {
  const { check: _check, ...rest } = fields;
  return rest;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
