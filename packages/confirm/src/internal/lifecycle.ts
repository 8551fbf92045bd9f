import type { ConfirmDecision } from '../decision.js';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import { fail, forgetMirror, type GateContext } from './context.js';
import { persist, writeDecision } from './persistence.js';
import { buildCard, nextPage, noticeText, promptText } from './prompts.js';
import type { Entry } from './records.js';
import { type Extra, type StepResult, type StepView, step } from './step.js';

// The effect runner of a confirmation: it performs what the pure `step` function decides (settle,
// prompt the next step, re-prompt, send a page), writes the store, sends, schedules the deadline
// and emits, and feeds the outcome of each send back (`prompt_delivered` sets `deliveredAt`, from
// which replies count; `send_failed` settles `aborted` / `prompt_failed`).

export type { Extra } from './step.js';

export interface SettleOptions {
  /** Who and what decided. */
  readonly extra?: Extra | undefined;
  /** `false`: resolve the local waiter only, record nothing (close, a full gate). */
  readonly record?: boolean;
  /** A decision another gate recorded: taken as is, nothing written. */
  readonly adopt?: ConfirmDecision;
  /** The notice sent to the session when this gate's decision is the one recorded. */
  readonly notice?: 'timedOut' | 'expired' | undefined;
}

/** What the rules read of an entry. */
export function viewOf(ctx: GateContext, entry: Entry): StepView {
  return {
    requester: entry.requester,
    approvers: entry.approvers,
    steps: entry.steps,
    step: entry.step,
    reprompts: entry.reprompts,
    firstPromptedAt: entry.firstPromptedAt,
    promptedAt: entry.promptedAt,
    deliveredAt: entry.deliveredAt,
    expiresAt: entry.state === 'prompted' ? entry.expiresAt : undefined,
    orphaned: entry.restored && !entry.remote && ctx.resume[entry.action.name] === undefined,
  };
}

/** Performs what `step` decided for an entry; returns whether the event was consumed. */
export function run(ctx: GateContext, entry: Entry, result: StepResult): boolean {
  switch (result.kind) {
    case 'expire':
      settle(ctx, entry, 'timed_out', 'timeout', { notice: 'timedOut' });
      return result.consumed;
    case 'settle':
      settle(ctx, entry, result.outcome, result.reason, { extra: result.extra, notice: result.notice });
      return true;
    case 'next_step':
      entry.step++;
      reprompt(ctx, entry, 'step');
      return true;
    case 'reprompt':
      entry.reprompts++;
      reprompt(ctx, entry, 'reprompt');
      return true;
    case 'page': {
      const page = nextPage(entry);
      if (page !== undefined) notify(ctx, entry, page);
      return true;
    }
    case 'ignore':
    case 'refuse':
      return true;
    case 'pass':
      return false;
  }
}

/** Prompts an entry: it becomes the session's active confirmation, with a deadline and a record. */
export function activate(ctx: GateContext, entry: Entry): void {
  const now = ctx.clock.now();
  entry.state = 'prompted';
  entry.firstPromptedAt = now;
  entry.promptedAt = now;
  entry.deliveredAt = undefined;
  entry.expiresAt = now + entry.timeoutMs;
  ctx.active.set(entry.sessionKey, entry);
  schedule(ctx, entry);
  persist(ctx, entry);
  // The prompt goes out only once its pending record is written: a user who saw it and answers
  // after a crash is caught by the restarted gate, never handed to the agent as chat.
  sendAfterWrite(ctx, entry, 'first');
}

/** Arms the entry's deadline; when it fires, the rules decide (a timer early by a tick re-arms). */
export function schedule(ctx: GateContext, entry: Entry): void {
  entry.deadline = ctx.deadlines.add(entry.expiresAt as number, () => {
    entry.deadline = undefined;
    if (entry.done) return;
    const result = step(viewOf(ctx, entry), { type: 'deadline' }, ctx.clock.now(), ctx.rules);
    if (result.kind === 'pass') schedule(ctx, entry);
    else run(ctx, entry, result);
  });
}

/** Sends a plain notice to an entry's session; a failed send is reported. */
export function notify(ctx: GateContext, entry: Entry, text: string): void {
  void ctx.bus.publishOutbound({ ...entry.address, text }).then((result) => {
    if (result.status === 'rejected') fail(ctx, result.error ?? result.code, entry.id);
  });
}

/** A new prompt (next step or re-prompt): unanswerable again until its send resolves. */
function reprompt(ctx: GateContext, entry: Entry, kind: 'step' | 'reprompt'): void {
  entry.promptedAt = ctx.clock.now();
  entry.deliveredAt = undefined;
  persist(ctx, entry);
  sendAfterWrite(ctx, entry, kind);
}

function sendAfterWrite(ctx: GateContext, entry: Entry, kind: 'first' | 'step' | 'reprompt'): void {
  const seq = ++entry.sends;
  void entry.io.then(() => {
    if (!entry.done && entry.sends === seq) return sendPrompt(ctx, entry, kind, seq);
  });
}

/**
 * Sends the first prompt, the next step or a re-prompt. When its send resolves the prompt is
 * delivered (replies written from then on count) and that is written to the store; a send that
 * fails, or a host template that throws, settles the entry `aborted` / `prompt_failed`.
 */
async function sendPrompt(
  ctx: GateContext,
  entry: Entry,
  kind: 'first' | 'step' | 'reprompt',
  seq: number,
): Promise<void> {
  const text = promptText(ctx, entry, kind);
  if (text === undefined) {
    settle(ctx, entry, 'aborted', 'prompt_failed');
    return;
  }
  const card = entry.steps === undefined && ctx.cards ? buildCard(ctx, entry) : undefined;
  const result = await ctx.bus.publishOutbound({
    ...entry.address,
    text,
    ...(card === undefined ? {} : { card }),
  });
  if (entry.done || entry.sends !== seq) return; // settled, or a newer prompt went out meanwhile
  if (result.status === 'rejected') {
    fail(ctx, result.error ?? result.code, entry.id);
    settle(ctx, entry, 'aborted', 'prompt_failed');
    return;
  }
  // prompt_delivered: replies written from now on count here. "Now" is when the send resolved, or
  // the platform's own stamp of the prompt when the adapter reported one inside the send's window
  // (so a reply the platform stamped after the prompt counts even if the send's answer came later).
  const now = ctx.clock.now();
  const stamped = result.sentAt;
  entry.deliveredAt = stamped !== undefined && stamped >= entry.promptedAt && stamped <= now ? stamped : now;
  wake(entry);
  persist(ctx, entry);
  // Announced once the delivery is written, so every replica reading the store can judge by it.
  const announced = {
    id: entry.id,
    sessionKey: entry.sessionKey,
    step: entry.step,
    reprompt: kind === 'reprompt',
  };
  void entry.io.then(() => {
    if (!entry.done && entry.sends === seq) ctx.events.emit('prompted', announced);
  });
}

/**
 * The one way an entry ends: reply, click, timeout, abort, supersede, close, failure or another
 * gate's decision. Local state is final at once; the decision is recorded (first writer wins) and
 * then announced and handed to the waiter, in the entry's write order. Settling twice does nothing.
 */
export function settle(
  ctx: GateContext,
  entry: Entry,
  outcome: ConfirmOutcome,
  reason: DecisionReason,
  how: SettleOptions = {},
): void {
  if (entry.done) return;
  entry.done = true;
  const { active, queued, recentlySettled } = ctx;
  if (entry.deadline !== undefined) ctx.deadlines.remove(entry.deadline);
  if (entry.onAbort !== undefined) entry.signal?.removeEventListener('abort', entry.onAbort);
  ctx.byId.delete(entry.id);
  forgetMirror(ctx, entry);
  recentlySettled.add(entry.id);
  const wasActive = active.get(entry.sessionKey) === entry;
  if (wasActive) active.delete(entry.sessionKey);
  const list = queued.get(entry.sessionKey);
  if (list?.includes(entry)) list.splice(list.indexOf(entry), 1);
  if (entry.state === 'prompted') remember(ctx, entry);
  wake(entry);
  const decision = how.adopt ?? toDecisionOf(entry, outcome, reason, how.extra, ctx.clock.now());
  const wasPersisted = entry.state === 'prompted';
  const record = how.record !== false && how.adopt === undefined;
  entry.io = entry.io
    .then(() => (record ? writeDecision(ctx, entry, decision, wasPersisted) : decision))
    .then((final) => {
      // Only the gate whose decision was recorded tells the session (not one that lost the race).
      if (how.notice !== undefined && final === decision && how.adopt === undefined)
        notify(ctx, entry, noticeText(ctx, entry, how.notice));
      return finish(ctx, entry, final);
    });
  if (wasActive && !ctx.closed) promoteNext(ctx, entry.sessionKey);
}

/** Lets the replies that arrived while the prompt was in flight be judged now. */
export function wake(entry: Entry): void {
  const waiting = entry.waiting;
  entry.waiting = undefined;
  if (waiting !== undefined) for (const resume of waiting) resume();
}

/** Keeps a decided confirmation's approvers for `afterDecisionMs`, so their late answers are absorbed. */
export function remember(ctx: GateContext, entry: Entry): void {
  if (ctx.afterDecisionMs === 0) return;
  const { lately } = ctx;
  lately.delete(entry.sessionKey);
  lately.set(entry.sessionKey, {
    id: entry.id,
    requester: entry.requester,
    approvers: entry.approvers,
    steps: entry.steps,
    until: ctx.clock.now() + ctx.afterDecisionMs,
  });
  if (lately.size > ctx.maxPending) lately.delete(lately.keys().next().value as string); // the oldest
}

function promoteNext(ctx: GateContext, sessionKey: string): void {
  const list = ctx.queued.get(sessionKey);
  const next = list?.shift();
  if (list !== undefined && list.length === 0) ctx.queued.delete(sessionKey);
  if (next !== undefined) activate(ctx, next);
}

async function finish(ctx: GateContext, entry: Entry, recorded: ConfirmDecision): Promise<void> {
  const decision = decidedInTime(entry, recorded);
  ctx.events.emit('decided', { decision });
  entry.resolve?.(decision);
  const handler = ctx.resume[entry.action.name];
  if (!entry.restored || entry.remote || handler === undefined || decision.reason === 'closed') return;
  try {
    await handler(decision, ctx.gate as NonNullable<typeof ctx.gate>); // set before any request or restore
  } catch (error) {
    fail(ctx, error, entry.id);
  }
}

/**
 * A recorded `confirmed` decided at or after the confirmation's deadline (another replica's, or
 * an older gate's) counts as `timed_out` here; `authorize` refuses it the same way. (A standing
 * allowance is never prompted, so it has no deadline.)
 */
function decidedInTime(entry: Entry, decision: ConfirmDecision): ConfirmDecision {
  const deadline = decision.expiresAt ?? entry.expiresAt;
  if (decision.outcome !== 'confirmed' || deadline === undefined || decision.decidedAt < deadline)
    return decision;
  return { ...decision, outcome: 'timed_out', reason: 'timeout' };
}

/** The decision this gate makes, built field by field (a literal with spreads is slow in V8). */
function toDecisionOf(
  entry: Entry,
  outcome: ConfirmOutcome,
  reason: DecisionReason,
  extra: Extra | undefined,
  decidedAt: number,
): ConfirmDecision {
  const decision: Writable<ConfirmDecision> = {
    id: entry.id,
    sessionKey: entry.sessionKey,
    action: entry.action,
    summary: entry.summary,
    requester: entry.requester,
    outcome,
    reason,
    requestedAt: entry.requestedAt,
    decidedAt,
  };
  if (extra?.decidedBy !== undefined) decision.decidedBy = extra.decidedBy;
  if (extra?.reply !== undefined) decision.reply = extra.reply;
  if (extra?.failedStep !== undefined) decision.failedStep = extra.failedStep;
  if (extra?.allowUntil !== undefined) decision.allowUntil = extra.allowUntil;
  if (entry.state === 'prompted') {
    decision.promptedAt = entry.firstPromptedAt;
    decision.expiresAt = entry.expiresAt as number; // every prompted entry has one
  }
  return decision;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };
