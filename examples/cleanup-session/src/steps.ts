// The effects of the cleanup flow's steps, run by @parley/fsm's chat-flow host after a step (or part)
// completes: the scope's review items, the execution plan, the platform run and the notification
// (both claimed before they run, so a redelivered reply or a restart never runs them twice), the
// audit save retried on the clock while it fails (close_pending) and the follow-up reminder.
import type { Clock, JsonValue, Store } from '@parley/core';
import type { ChatContext, FollowUps } from '@parley/chat-flow';
import type { Notification, Notifier, PlatformAdapter } from './adapters.js';
import * as effects from './effects.js';
import type { CleanupStep } from './flow.js';
import { auditKey, createReviewQueues, DEFAULT_SAVE_DELAYS_MS, refusedError } from './persistence.js';
import type { Fields } from './replies.js';
import { type CleanupRecord, type HostData, toAuditSummary } from './session-json.js';

export type Ctx = ChatContext<CleanupStep, unknown, HostData>;

/** What the steps need from the host that runs them. */
export interface StepKit {
  readonly sessionId: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly generateId: (prefix: string) => string;
  readonly platform: PlatformAdapter;
  readonly notifier: Notifier;
  readonly saveDelaysMs?: readonly number[];
  readonly followUps: FollowUps<Notification>;
  say(speaker: 'bot' | 'host' | 'system', text: string, at?: string): void;
  /** Records a side effect for the audit trail and the transcript, under the step that caused it. */
  note(ctx: Ctx, kind: string, detail: string, at?: string): void;
  /** The redacted audit summary handed to the user at close. */
  exported(summary: JsonValue): void;
}

export interface CleanupSteps {
  submit(ctx: Ctx, fields: Fields, transient?: Fields): Promise<void>;
  after(ctx: Ctx, done: CleanupStep, part: number): Promise<void>;
  execute(ctx: Ctx): Promise<void>;
  saveAudit(ctx: Ctx): Promise<void>;
}

export function createSteps(kit: StepKit): CleanupSteps {
  const { sessionId, store, clock, followUps, say, note } = kit;
  const reviews = createReviewQueues(store, clock, () => kit.generateId('rev_'));
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
      const created = effects.createPlan(kit.generateId('plan_'), fields);
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
      const notify = () => effects.notifyResult(kit.notifier, mode, sessionId, ctx.data, manual);
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
      effects.runExecution(kit.platform, plan(ctx), left(ctx), ctx.data.execution, credential, run),
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
    const tries = (kit.saveDelaysMs ?? DEFAULT_SAVE_DELAYS_MS).length + 1;
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
    if (ctx.session.fields.close?.audit_export === true) kit.exported(toAuditSummary(record(), clock.now()));
    const planned = effects.planReminder(sessionId, ctx.session.fields, ctx.data);
    if (planned !== undefined) {
      const dueAt = clock.now() + planned.delayMs;
      const scheduled = await followUps.schedule(sessionId, dueAt, planned.reminder);
      if (scheduled.ok)
        note(ctx, 'followup', `reminder scheduled for ${new Date(dueAt).toISOString()}`, 'close');
    }
    await persist(ctx);
  }

  return { submit, after, execute, saveAudit };
}
