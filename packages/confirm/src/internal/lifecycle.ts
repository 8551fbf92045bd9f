import type { ConfirmDecision } from '../decision.js';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import { fail, forgetMirror, type GateContext } from './context.js';
import { persist, writeDecision } from './persistence.js';
import { buildCard, nextPage, noticeText, notify, promptText } from './prompts.js';
import { type Entry, unsent } from './records.js';
import { remember } from './settled.js';
import { type Extra, type StepResult, type StepView, step } from './step.js';
import { decidedInTime, inTime, toDecisionOf } from './step-decided.js';

// The effect runner of a confirmation: it performs what the pure `step` function decides (settle,
// prompt the next step, re-prompt, send a page or a notice), writes the store, sends, times the
// answering window and emits, and feeds the outcome of each send back (`prompt_delivered` gives
// the prompt its arrival number and platform order, from which replies count; `send_failed`
// settles `aborted` / `prompt_failed`).

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
    requester: entry.record.requester,
    approvers: entry.record.approvers,
    steps: entry.record.steps ?? undefined,
    step: entry.record.step,
    reprompts: entry.record.reprompts,
    sentSeq: entry.sentSeq,
    deliveredSeq: entry.deliveredSeq,
    order: entry.record.order,
    prompted: entry.state === 'prompted',
    expired: entry.windowOver,
    orphaned: entry.restored && !entry.remote && ctx.resume[entry.record.action.name] === undefined,
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
      entry.record.step++;
      reprompt(ctx, entry, 'step');
      return true;
    case 'reprompt':
      entry.record.reprompts++;
      reprompt(ctx, entry, 'reprompt');
      return true;
    case 'page': {
      const page = nextPage(entry);
      if (page !== undefined) notify(ctx, entry.address, entry.record.id, page);
      return true;
    }
    case 'ignore':
      if (result.tooEarly === true) tellTooEarly(ctx, entry);
      return true;
    case 'hold':
    case 'refuse':
      return true;
    case 'pass':
      return false;
  }
}

/**
 * Prompts an entry: it becomes the session's active confirmation, with a record and a provisional
 * window (so a send that never resolves still ends); the window starts again when the first
 * prompt is delivered.
 */
export function activate(ctx: GateContext, entry: Entry): void {
  const now = ctx.clock.now();
  entry.state = 'prompted';
  entry.record.firstPromptedAt = now;
  entry.record.promptedAt = now;
  unsent(entry);
  entry.record.expiresAt = now + entry.record.timeoutMs;
  ctx.active.set(entry.record.sessionKey, entry);
  schedule(ctx, entry, entry.record.timeoutMs);
  // The prompt goes out only once its pending record is written: a user who saw it and answers
  // after a crash is caught by the restarted gate, never handed to the agent as chat.
  sendAfterWrite(ctx, entry, 'first', persist(ctx, entry));
}

/**
 * Times the entry's answering window with the clock's timers: what is left of it by the stored
 * deadline when it is loaded, all of it when it is prompted here. Elapsed time within a process
 * decides (a wall-clock step neither ends the window early nor stretches it); the stored absolute
 * deadline carries it across restarts and replicas. When the timer fires, the rules decide.
 */
export function schedule(ctx: GateContext, entry: Entry, windowMs?: number): void {
  ctx.clock.clearTimeout(entry.timer);
  const delayMs = Math.max(0, windowMs ?? entry.record.expiresAt - ctx.clock.now());
  entry.windowOver = delayMs === 0; // a deadline stored in the past is over at once
  entry.timer = ctx.clock.setTimeout(() => {
    entry.windowOver = true; // from now on no answer counts, here or anywhere
    // A follower settles a little after the owner would, so the owner records and announces the
    // timeout while it lives; the follower does only when the owner is gone.
    entry.timer = entry.remote
      ? ctx.clock.setTimeout(() => expire(ctx, entry), FOLLOWER_GRACE_MS)
      : undefined;
    if (!entry.remote) expire(ctx, entry);
  }, delayMs);
}

/** How long after the deadline a gate following another gate's confirmation times it out itself. */
const FOLLOWER_GRACE_MS = 1_000;

function expire(ctx: GateContext, entry: Entry): void {
  entry.timer = undefined;
  if (!entry.done)
    run(ctx, entry, step(viewOf(ctx, entry), { type: 'deadline' }, ctx.clock.now(), ctx.rules));
}

/** A new prompt (next step or re-prompt): unanswerable again until its send resolves. */
function reprompt(ctx: GateContext, entry: Entry, kind: 'step' | 'reprompt'): void {
  entry.record.promptedAt = ctx.clock.now();
  unsent(entry);
  sendAfterWrite(ctx, entry, kind, persist(ctx, entry));
}

/**
 * Sends a prompt once its record is written; when another gate wrote a newer version of the
 * record first (`write_lost_race`), nothing is sent and that version is adopted instead.
 */
function sendAfterWrite(
  ctx: GateContext,
  entry: Entry,
  kind: 'first' | 'step' | 'reprompt',
  written: Promise<boolean>,
): void {
  const seq = ++entry.sends;
  void written.then((won) => {
    if (entry.done || entry.sends !== seq) return;
    if (won) return sendPrompt(ctx, entry, kind, seq);
    ctx.adopt(entry);
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
  const card = entry.record.steps === null && ctx.cards ? buildCard(ctx, entry) : undefined;
  entry.sentSeq = ++ctx.arrivals; // replies that reached the gate before this never count for it
  const result = await ctx.bus.publishOutbound({
    ...entry.address,
    text,
    ...(card === undefined ? {} : { card }),
  });
  if (entry.done || entry.sends !== seq) return; // settled, or a newer prompt went out meanwhile
  if (result.status === 'rejected') {
    entry.sentSeq = undefined; // the platform refused it: nobody saw this prompt
    fail(ctx, result.error ?? result.code, entry.record.id);
    settle(ctx, entry, 'aborted', 'prompt_failed');
    return;
  }
  // prompt_delivered: replies that arrive from now on count here, and those that arrived while
  // it was in flight count when the platform's order puts them after it.
  const now = ctx.clock.now();
  entry.record.deliveredAt = now;
  entry.deliveredSeq = ++ctx.arrivals;
  entry.record.order = result.status === 'sent' ? result.order : undefined;
  entry.seen = true;
  if (kind === 'first') {
    // The person gets the whole window, counted from the moment the prompt was delivered.
    entry.record.expiresAt = now + entry.record.timeoutMs;
    schedule(ctx, entry, entry.record.timeoutMs);
  }
  wake(entry);
  persist(ctx, entry);
  // Announced once the delivery is written, so every replica reading the store can judge by it;
  // once for every delivered prompt, also one a newer prompt overtook meanwhile.
  const announced = {
    id: entry.record.id,
    sessionKey: entry.record.sessionKey,
    step: entry.record.step,
    reprompt: kind === 'reprompt',
  };
  void entry.io.then(() => ctx.events.emit('prompted', announced));
}

/** Tells the person, once per prompt, that an answer came too early and did not count. */
function tellTooEarly(ctx: GateContext, entry: Entry): void {
  const prompt = `${entry.record.step}.${entry.record.reprompts}`;
  if (entry.toldEarly === prompt) return;
  entry.toldEarly = prompt;
  notify(ctx, entry.address, entry.record.id, noticeText(ctx, entry.record, 'tooEarly'));
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
  ctx.clock.clearTimeout(entry.timer);
  entry.timer = undefined;
  if (entry.onAbort !== undefined) entry.signal?.removeEventListener('abort', entry.onAbort);
  ctx.byId.delete(entry.record.id);
  forgetMirror(ctx, entry);
  recentlySettled.add(entry.record.id);
  const wasActive = active.get(entry.record.sessionKey) === entry;
  if (wasActive) active.delete(entry.record.sessionKey);
  const list = queued.get(entry.record.sessionKey);
  if (list?.includes(entry)) list.splice(list.indexOf(entry), 1);
  const decision =
    how.adopt ??
    toDecisionOf(
      { ...entry.record, state: entry.state, windowOver: entry.windowOver },
      outcome,
      reason,
      how.extra,
      ctx.clock.now(),
    );
  remember(ctx, entry, decidedInTime(decision) ? decision.outcome : 'timed_out', decision.reason);
  wake(entry);
  const wasPersisted = entry.state === 'prompted';
  const record = how.record !== false && how.adopt === undefined;
  const written = entry.io.then(() =>
    record ? writeDecision(ctx, entry, decision, wasPersisted) : decision,
  );
  ctx.settling.set(entry.record.id, written); // `reconcile` reads the decision after its write
  entry.io = written.then((final) => {
    ctx.settling.delete(entry.record.id);
    // Only the gate whose decision was recorded tells the session (not one that lost the race).
    if (how.notice !== undefined && final === decision && how.adopt === undefined)
      notify(ctx, entry.address, entry.record.id, noticeText(ctx, entry.record, how.notice));
    return finish(ctx, entry, final);
  });
  if (wasActive && !ctx.closed) promoteNext(ctx, entry.record.sessionKey);
}

/** Lets the replies that arrived while the prompt was in flight be judged now. */
export function wake(entry: Entry): void {
  const waiting = entry.waiting;
  entry.waiting = undefined;
  if (waiting !== undefined) for (const resume of waiting) resume();
}

function promoteNext(ctx: GateContext, sessionKey: string): void {
  const list = ctx.queued.get(sessionKey);
  const next = list?.shift();
  if (list !== undefined && list.length === 0) ctx.queued.delete(sessionKey);
  if (next !== undefined) activate(ctx, next);
}

async function finish(ctx: GateContext, entry: Entry, recorded: ConfirmDecision): Promise<void> {
  const decision = inTime(recorded, entry.state === 'prompted' ? entry.record.expiresAt : undefined);
  ctx.events.emit('decided', { decision });
  entry.resolve?.(decision);
  const handler = ctx.resume[entry.record.action.name];
  if (!entry.restored || entry.remote || handler === undefined || decision.reason === 'closed') return;
  try {
    await handler(decision, ctx.gate as NonNullable<typeof ctx.gate>); // set before any request or restore
  } catch (error) {
    fail(ctx, error, entry.record.id);
  }
}
