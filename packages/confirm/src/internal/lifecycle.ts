import type { OutboundCard } from '@parley/bus';
import type { ConfirmDecision, ConfirmOutcome, DecisionReason } from '../types.js';
import { fail, forgetMirror, type GateContext } from './context.js';
import { persist, writeDecision } from './persistence.js';
import type { Entry } from './records.js';
import type { CardChoice } from './token.js';

/** What decided, besides the outcome and reason. */
export type Extra = Pick<ConfirmDecision, 'decidedBy' | 'reply' | 'failedStep' | 'allowUntil'>;

export interface SettleOptions {
  /** Who and what decided. */
  readonly extra?: Extra;
  /** `false`: resolve the local waiter only, record nothing (close). */
  readonly record?: boolean;
  /** A decision another gate recorded: taken as is, nothing written. */
  readonly adopt?: ConfirmDecision;
  /** Sent to the session when this gate's decision is the one recorded. */
  readonly notice?: string;
}

/** Prompts an entry: it becomes the session's active confirmation, with a deadline and a record. */
export function activate(ctx: GateContext, entry: Entry): void {
  const now = ctx.clock.now();
  entry.state = 'prompted';
  entry.firstPromptedAt = now;
  entry.promptedAt = now;
  entry.expiresAt = now + entry.timeoutMs;
  ctx.active.set(entry.sessionKey, entry);
  entry.deadline = ctx.deadlines.add(entry.expiresAt, () => expire(ctx, entry));
  persist(ctx, entry);
  // The prompt goes out only once its pending record is written: a user who saw it and answers
  // after a crash is caught by the restarted gate, never handed to the agent as chat.
  void entry.io.then(() => {
    if (!entry.done) return sendPrompt(ctx, entry, 'first');
  });
}

/** Times an entry out at its deadline and tells the session. */
export function expire(ctx: GateContext, entry: Entry): void {
  entry.deadline = undefined; // it fired; settle removes the deadline of any other outcome
  settle(ctx, entry, 'timed_out', 'timeout', { notice: ctx.texts.timedOut(entry.summary) });
}

/** Sends a plain notice to an entry's session; a failed send is reported. */
export function notify(ctx: GateContext, entry: Entry, text: string): void {
  void ctx.bus.publishOutbound({ ...entry.address, text }).then((result) => {
    if (result.status === 'rejected') fail(ctx, result.error ?? result.code, entry.id);
  });
}

/** Sends the first prompt, the next step or a re-prompt; a prompt that cannot be sent aborts. */
export async function sendPrompt(
  ctx: GateContext,
  entry: Entry,
  kind: 'first' | 'step' | 'reprompt',
): Promise<void> {
  const { texts } = ctx;
  let text: string;
  let card: OutboundCard | undefined;
  if (entry.steps !== undefined) {
    text = (entry.steps[entry.step] as { prompt: string }).prompt; // step < steps.length while pending
  } else {
    text =
      kind === 'reprompt'
        ? texts.reprompt(entry.summary, ctx.maxReprompts - entry.reprompts)
        : texts.prompt(entry.summary, ctx.standingMs !== undefined);
    if (ctx.cards) card = buildCard(ctx, entry);
  }
  const result = await ctx.bus.publishOutbound({
    ...entry.address,
    text,
    ...(card === undefined ? {} : { card }),
  });
  if (result.status === 'rejected') {
    fail(ctx, result.error ?? result.code, entry.id);
    settle(ctx, entry, 'aborted', 'prompt_failed');
    return;
  }
  if (!entry.done)
    ctx.events.emit('prompted', {
      id: entry.id,
      sessionKey: entry.sessionKey,
      step: entry.step,
      reprompt: kind === 'reprompt',
    });
}

function buildCard(ctx: GateContext, entry: Entry): OutboundCard {
  const choices: [CardChoice, string, 'danger' | 'default' | 'primary'][] = [
    ['confirm', '确认 Confirm', 'danger'],
    ['cancel', '取消 Cancel', 'default'],
  ];
  if (ctx.standingMs !== undefined) choices.push(['always', '总是允许 Always allow', 'primary']);
  const buttons = choices.map(([choice, label, style]) => ({
    label,
    style,
    value: { confirmation: ctx.tokens.sign(entry.id, choice) },
  }));
  return { title: '需要确认 Confirmation required', body: entry.summary, buttons };
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
  const decision = how.adopt ?? toDecisionOf(entry, outcome, reason, how.extra, ctx.clock.now());
  const wasPersisted = entry.state === 'prompted';
  const record = how.record !== false && how.adopt === undefined;
  entry.io = entry.io
    .then(() => (record ? writeDecision(ctx, entry, decision, wasPersisted) : decision))
    .then((final) => {
      // Only the gate whose decision was recorded tells the session (not one that lost the race).
      if (how.notice !== undefined && final === decision && how.adopt === undefined)
        notify(ctx, entry, how.notice);
      return finish(ctx, entry, final);
    });
  if (wasActive && !ctx.closed) promoteNext(ctx, entry.sessionKey);
}

function promoteNext(ctx: GateContext, sessionKey: string): void {
  const list = ctx.queued.get(sessionKey);
  const next = list?.shift();
  if (list !== undefined && list.length === 0) ctx.queued.delete(sessionKey);
  if (next !== undefined) activate(ctx, next);
}

async function finish(ctx: GateContext, entry: Entry, decision: ConfirmDecision): Promise<void> {
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
  if (entry.state === 'prompted') decision.promptedAt = entry.firstPromptedAt;
  return decision;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };
