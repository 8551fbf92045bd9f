import type { SessionAddress } from '@parley/bus';
import type { ConfirmDecision } from '../decision.js';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import { type Entry, fail, type GateContext, keepAtMost } from './context.js';
import type {
  Confirmation,
  ConfirmationEffect,
  ConfirmationEvent,
  ConfirmationTransition,
  ConfirmationVerdict,
  DecisionDetails,
  PromptShown,
} from './confirmation.js';
import type { Draft } from './draft.js';
import { confirmStep, FOLLOWER_GRACE_MS, timeless } from './machine.js';
import { persist, writeDecision } from './persistence.js';
import { buildCard, lateText, noticeText, notify, outboundTo, promptText } from './prompts.js';
import { announce, finish } from './announce.js';

// The runner of the confirmations of one gate: the only place a confirmation's state changes
// (to what the pure `confirmStep` returns for an event) and the only place its effects run — store
// writes (through persistence.ts), sends, notices, timers, events, the waiter and resume handlers.
// Replies, clicks, store changes, timers and send results only become events fed to `dispatch`.

/** An entry around a confirmation. */
export function entryOf(conf: Confirmation, address: SessionAddress): Entry {
  // Every field made here, so the fields set later fit in the object (no separate property store).
  return {
    conf,
    address,
    waiting: undefined,
    io: SETTLED,
    committed: undefined,
    timer: undefined,
    signal: undefined,
    onAbort: undefined,
    resolve: undefined,
  };
}

/** The writes of an entry that made none yet: one settled promise for all of them. */
const SETTLED: Promise<unknown> = Promise.resolve();

/** Whether it is settled here (or followed no more). */
export function isDone(entry: Entry): boolean {
  return entry.conf.state === 'done';
}

/**
 * Feeds one event to a confirmation: takes the state `confirmStep` returns and performs its
 * effects in order; returns what the answer rules made of a reply or click.
 */
export function dispatch(
  ctx: GateContext,
  entry: Entry,
  event: ConfirmationEvent,
  now?: number,
): ConfirmationVerdict | undefined {
  return transition(ctx, entry, event, now).result;
}

/**
 * `dispatch`, returning the whole transition (for admission). The clock is read once per event —
 * `now` when the caller read it for this event already — and not at all for a timeless one.
 */
export function transition(
  ctx: GateContext,
  entry: Entry,
  event: ConfirmationEvent,
  now?: number,
): ConfirmationTransition {
  const at = now ?? (timeless(event) ? Number.NaN : ctx.clock.now());
  const done = confirmStep(entry.conf, event, at, ctx.rules);
  entry.conf = done.next;
  for (const effect of done.effects) perform(ctx, entry, effect);
  return done;
}

/** Whether the message behind a step result is consumed (never reaches the agent). */
export function consumed(result: ConfirmationVerdict | undefined): boolean {
  if (result === undefined || result.kind === 'pass') return false;
  return result.kind === 'expire' ? result.consumed : true;
}

/** Prompts an entry (at `now`, when the caller read the clock for this event): it becomes its session's active confirmation. */
export function activate(ctx: GateContext, entry: Entry, now?: number): void {
  ctx.active.set(entry.conf.record.sessionKey, entry);
  dispatch(ctx, entry, { type: 'prompt' }, now);
}

/** Ends an entry without an answer (abort, supersede, close, a failure), or with another gate's decision. */
export function settle(
  ctx: GateContext,
  entry: Entry,
  outcome: ConfirmOutcome,
  reason: DecisionReason,
  how: { readonly extra?: DecisionDetails; readonly record?: boolean; readonly adopt?: ConfirmDecision } = {},
): void {
  dispatch(ctx, entry, { type: 'settle', outcome, reason, ...how });
}

function perform(ctx: GateContext, entry: Entry, effect: ConfirmationEffect): void {
  const { record } = entry.conf;
  switch (effect.type) {
    case 'timer':
      // Elapsed time within this process times the window (a wall-clock step neither ends it
      // early nor stretches it); the stored absolute deadline carries it across restarts.
      arm(ctx, entry, effect.delayMs, WINDOW_OVER);
      break;
    case 'grace':
      arm(ctx, entry, FOLLOWER_GRACE_MS, GRACE_OVER);
      break;
    case 'write_then_send': {
      // The prompt goes out only once its record is written: a user who saw it and answers after
      // a crash is caught by the restarted gate. A write lost to another gate's adopts that one.
      void write(ctx, entry).then((won) => {
        if (isDone(entry) || entry.conf.sends !== effect.sends) return;
        if (won) return sendPrompt(ctx, entry, effect.kind, effect.sends);
        ctx.adopt(entry);
      });
      break;
    }
    case 'write':
      void write(ctx, entry);
      break;
    case 'wake':
      wake(entry);
      break;
    case 'announce':
      announce(ctx, entry, effect);
      break;
    case 'notice':
      notify(ctx, entry.address, record.id, noticeText(ctx, record, effect.name));
      break;
    case 'page':
      notify(ctx, entry.address, record.id, effect.text);
      break;
    case 'decided':
      decided(ctx, entry, effect);
      break;
    case 'dropped':
      release(ctx, entry);
      remember(ctx, entry);
      wake(entry); // answers held for its delivery are judged again, never left hanging
      break;
    case 'late':
      notify(ctx, entry.address, record.id, lateText(ctx, record, effect.outcome));
      break;
    case 'forget':
      if (ctx.lately.get(record.sessionKey) === entry) ctx.lately.delete(record.sessionKey);
      break;
  }
}

/** Writes the entry's record as it is now; its new `rev` comes back as an event. */
function write(ctx: GateContext, entry: Entry): Promise<boolean> {
  return persist(ctx, entry, (rev) => dispatch(ctx, entry, { type: 'written', rev }));
}

/** The events of an entry's timer: one object each for every entry (events are never changed). */
const WINDOW_OVER: ConfirmationEvent = { type: 'window_over' };
const GRACE_OVER: ConfirmationEvent = { type: 'grace_over' };

/** Sets the entry's one timer; when it fires, `event` goes to the step. */
function arm(ctx: GateContext, entry: Entry, delayMs: number, event: ConfirmationEvent): void {
  ctx.clock.clearTimeout(entry.timer);
  entry.timer = ctx.clock.setTimeout(() => {
    entry.timer = undefined;
    dispatch(ctx, entry, event);
  }, delayMs);
}

/** Lets the answers that arrived while the prompt was in flight be judged now. */
export function wake(entry: Entry): void {
  const waiting = entry.waiting;
  entry.waiting = undefined;
  if (waiting !== undefined) for (const resume of waiting) resume();
}

/** Lets go of an ended entry here: its timer, abort listener and place in the gate's maps. */
function release(ctx: GateContext, entry: Entry): void {
  ctx.clock.clearTimeout(entry.timer);
  entry.timer = undefined;
  if (entry.onAbort !== undefined) entry.signal?.removeEventListener('abort', entry.onAbort);
  const { id } = entry.conf.record;
  if (ctx.byId.get(id) === entry) ctx.byId.delete(id);
  forgetMirror(ctx, entry);
}

/**
 * Performs a decision: the entry leaves the gate's maps at once; the decision is recorded (first
 * writer wins), then announced and handed to the waiter in the entry's write order; the next
 * queued confirmation of its session is prompted.
 */
function decided(
  ctx: GateContext,
  entry: Entry,
  effect: Extract<ConfirmationEffect, { type: 'decided' }>,
): void {
  const { record } = entry.conf;
  const { decision } = effect;
  const { active, queued } = ctx;
  release(ctx, entry);
  ctx.recentlySettled.add(record.id, true);
  const wasActive = active.get(record.sessionKey) === entry;
  if (wasActive) active.delete(record.sessionKey);
  const list = queued.get(record.sessionKey);
  if (list?.includes(entry)) list.splice(list.indexOf(entry), 1);
  remember(ctx, entry);
  wake(entry);
  const written = entry.io.then(() =>
    effect.record ? writeDecision(ctx, entry, decision, effect.wasStored) : decision,
  );
  ctx.settling.set(record.id, written); // `reconcile` reads the decision after its write
  entry.io = written.then((final) => {
    ctx.settling.delete(record.id);
    // Only the gate whose decision was recorded tells the session (not one that lost the race).
    if (effect.notice !== undefined && final === decision && !effect.adopted)
      notify(ctx, entry.address, record.id, noticeText(ctx, record, effect.notice));
    return finish(ctx, entry, final, effect.wasStored);
  });
  if (wasActive && !ctx.closed) promoteNext(ctx, record.sessionKey);
}

/**
 * Keeps a decided confirmation as its session's latest for `afterDecisionMs`, when the step says
 * its approvers' late answers are absorbed (`after`); at most `maxPending` sessions are kept.
 */
function remember(ctx: GateContext, entry: Entry): void {
  if (entry.conf.after === null) return;
  const { sessionKey } = entry.conf.record;
  const { lately } = ctx;
  lately.delete(sessionKey);
  lately.set(sessionKey, entry);
  keepAtMost(lately, ctx.rules.admit.maxPending);
}

function promoteNext(ctx: GateContext, sessionKey: string): void {
  const list = ctx.queued.get(sessionKey);
  const next = list?.shift();
  if (list !== undefined && list.length === 0) ctx.queued.delete(sessionKey);
  if (next !== undefined) activate(ctx, next);
}

/**
 * Sends the first prompt, the next step or a re-prompt and feeds back what became of it: its
 * send began (answers that reached the gate before never count for it), it was delivered, or it
 * failed (a refused send or a host template that throws).
 */
async function sendPrompt(
  ctx: GateContext,
  entry: Entry,
  kind: 'first' | 'step' | 'reprompt',
  sends: number,
): Promise<void> {
  const { record } = entry.conf;
  const text = promptText(ctx, record, kind);
  if (text === undefined) {
    dispatch(ctx, entry, { type: 'send_failed', sends });
    return;
  }
  const card = record.steps === null && ctx.cards ? buildCard(ctx, record) : undefined;
  dispatch(ctx, entry, { type: 'send_begun', sends, seq: ++ctx.arrivals });
  const outbound = outboundTo(entry.address, text);
  if (card !== undefined) outbound.card = card;
  let result: Awaited<ReturnType<GateContext['bus']['publishOutbound']>>;
  try {
    result = await ctx.bus.publishOutbound(outbound);
  } catch (error) {
    // A bus that throws or rejects (a host's own bus) is reported. Whether the prompt was seen is
    // unknown, so it is not a refused send: the confirmation waits for its answer or its deadline.
    fail(ctx, error, record.id);
    return;
  }
  if (isDone(entry) || entry.conf.sends !== sends) return; // settled, or a newer prompt went out meanwhile
  if (result.status === 'rejected') {
    fail(ctx, result.error ?? result.code, record.id);
    dispatch(ctx, entry, { type: 'send_failed', sends });
    return;
  }
  const order = result.status === 'sent' ? result.order : undefined;
  const messageId = result.status === 'sent' ? result.messageId : undefined;
  const shown: Draft<PromptShown> = { text, card };
  if (messageId !== undefined) shown.messageId = messageId;
  dispatch(ctx, entry, { type: 'delivered', sends, seq: ++ctx.arrivals, kind, order, shown });
}

/** Stops listing an entry as followed from another gate. */
export function forgetMirror(ctx: GateContext, entry: Entry): void {
  const { id, sessionKey } = entry.conf.record;
  if (ctx.mirrors.get(id) !== entry) return;
  ctx.mirrors.delete(id);
  if (ctx.mirrorOf.get(sessionKey) === entry) ctx.mirrorOf.delete(sessionKey);
}
