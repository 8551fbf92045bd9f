import { type InboundMessage, MAX_REMEMBERED_ID_LENGTH, toRememberedId } from '@parley/bus';
import type { JsonValue } from '@parley/core';
import type { ConfirmEvents } from '../events.js';
import type { Entry, GateContext } from './context.js';
import { loadRemote } from './persistence.js';
import type { ConfirmationRecord } from './records.js';
import { followedFor, load, mirror } from './followed.js';
import { consumed, dispatch, isDone } from './runner.js';
import type { ConfirmationAnswer } from './confirmation.js';

// Where messages, clicks and store changes enter the gate: each becomes an event of the
// confirmation it concerns (a message may answer the one decided just before), handed to the
// runner; the step judges it.

/** The longest event key kept: a longer one is kept as `#` and its SHA-256 (the bus's `toRememberedId`). */
export const MAX_EVENT_KEY_LENGTH = MAX_REMEMBERED_ID_LENGTH + 1;
/** At most this many replies or clicks wait for one prompt in flight; more are consumed, not counted. */
export const MAX_WAITING = 16;
/**
 * Installs the gate's interceptor on its bus: every inbound message and card click takes the
 * next arrival number and becomes an event of the confirmation it may answer.
 */
export function install(ctx: GateContext): () => void {
  return ctx.bus.intercept({
    name: 'confirm',
    intercept(message: InboundMessage) {
      // The order the gate saw events in: this message's place among messages and prompt sends.
      const arrival = ++ctx.arrivals;
      if (message.kind === 'card_action') {
        const token = cardToken(message.action);
        return token === undefined ? false : onCard(ctx, message, token, arrival);
      }
      if (ctx.loading) return ctx.ready.then(() => onMessage(ctx, message, arrival));
      // Nothing pending, followed, just decided or counted that this message could touch: pass it
      // on after one lookup, as most chat in a busy bus is.
      const idle =
        ctx.mirrorOf.size === 0 &&
        ctx.followedOf.size === 0 &&
        ctx.followedLately.size === 0 &&
        ctx.lately.size === 0 &&
        (message.eventId === undefined || ctx.countedEvents.size === 0) &&
        (ctx.active.size === 0 || ctx.active.get(message.sessionKey) === undefined);
      return idle ? false : onMessage(ctx, message, arrival);
    },
  });
}

/**
 * Turns an inbound message of a session with a pending confirmation (this gate's, or one it
 * follows from another gate), or one decided within `afterDecisionMs`, into a `reply` event;
 * returns whether it is consumed. `arrival` is the number the gate gave the message when it
 * reached it. The rules are the step's; a reply it holds (it carries a platform order and the
 * prompt is in flight) waits for the send's receipt, the decision, the deadline or close().
 */
export function onMessage(
  ctx: GateContext,
  message: InboundMessage,
  arrival: number,
  loaded = false,
): boolean | Promise<boolean> {
  if (message.kind !== 'message') return false;
  const { sessionKey } = message;
  const entry =
    ctx.active.get(sessionKey) ?? (ctx.mirrorOf.size === 0 ? undefined : ctx.mirrorOf.get(sessionKey));
  const followed = entry !== undefined || loaded ? undefined : followedFor(ctx, sessionKey);
  if (followed !== undefined) {
    // Another gate's, followed by its index entry only: judged once its record is loaded (held
    // in full from then on); what arrived meanwhile keeps its arrival number.
    return load(ctx, followed).then(() => onMessage(ctx, message, arrival, true));
  }
  const event = message.eventId === undefined ? undefined : eventKeyOf(message.channel, message.eventId);
  const countedFor = event === undefined ? undefined : ctx.countedEvents.get(event);
  if (countedFor !== undefined) {
    ignore(ctx, message, countedFor, 'stale_reply'); // a redelivery of an event that already counted: consumed
    return true;
  }
  const reply = replyOf(message, arrival, (entry?.waiting?.length ?? 0) >= MAX_WAITING);
  if (entry === undefined) return offerToDecided(ctx, message, reply);
  let result = dispatch(ctx, entry, reply);
  if (result?.kind === 'before_send') {
    // It reached the gate before this prompt's send began: it may answer the one decided just
    // before ("确认" sent twice); otherwise it does not count here, and the person is told.
    if (offerToDecided(ctx, message, reply)) return true;
    result = dispatch(ctx, entry, { ...reply, lateChecked: true });
  }
  if (result === undefined) return offerToDecided(ctx, message, reply); // settled meanwhile
  if (result.kind === 'hold') {
    const waiting = entry.waiting ?? [];
    entry.waiting = waiting;
    return new Promise<boolean>((resolve) => {
      waiting.push(() => resolve(onMessage(ctx, message, arrival)));
    });
  }
  const id = entry.conf.record.id;
  if ((result.kind === 'pass' || result.kind === 'ignore') && result.code !== undefined)
    ignore(ctx, message, id, result.code);
  const counted = result.kind !== 'pass' && result.kind !== 'ignore';
  if (counted && event !== undefined) ctx.countedEvents.add(event, id);
  return consumed(result);
}

/** A message as a `reply` event; `full` when no more replies may wait for its prompt's delivery. */
function replyOf(
  message: InboundMessage,
  arrival: number,
  full: boolean,
): ConfirmationAnswer & { type: 'reply' } {
  return {
    type: 'reply',
    text: message.text,
    senderId: message.senderId,
    arrival,
    order: message.order,
    bot: message.fromSelf === true || message.senderIsBot === true,
    full,
  };
}

/** Reports a message the gate saw and did not count (a function, not a closure per message). */
function ignore(
  ctx: GateContext,
  message: InboundMessage,
  id: string,
  code: ConfirmEvents['ignored']['code'],
): void {
  ctx.events.emit('ignored', { id, sessionKey: message.sessionKey, senderId: message.senderId, code });
}

/**
 * Hands a message to its session's confirmation decided lately, if any: the step consumes an
 * approver's answer to it (and tells the person, once, what was decided).
 */
function offerToDecided(
  ctx: GateContext,
  message: InboundMessage,
  reply: ConfirmationAnswer & { type: 'reply' },
): boolean {
  const lately = ctx.lately.size === 0 ? undefined : ctx.lately.get(message.sessionKey);
  if (lately === undefined) return false;
  const result = dispatch(ctx, lately, reply);
  if (result?.kind !== 'ignore') return false;
  ignore(ctx, message, lately.conf.record.id, 'after_decision');
  return true;
}

/** The `confirmation` token a card action carries, if it is one of the gate's buttons. */
export function cardToken(action: JsonValue | undefined): string | undefined {
  if (typeof action !== 'object' || action === null || Array.isArray(action)) return undefined;
  const token = (action as { readonly confirmation?: JsonValue }).confirmation;
  return typeof token === 'string' ? token : undefined;
}

/**
 * Resolves a card click by the confirmation id in its token (checked, and signed when the gate
 * has a secret), held here or read from the store; the click is consumed whether it counts or not.
 * The rules (deadline first, who may click, delivered before the click) are in `step`.
 */
export async function onCard(
  ctx: GateContext,
  message: InboundMessage,
  token: string,
  arrival: number,
): Promise<boolean> {
  if (ctx.loading) await ctx.ready;
  const refuse = (code: ConfirmEvents['refused']['code'], id?: string): boolean => {
    ctx.events.emit(
      'refused',
      id === undefined ? { code, senderId: message.senderId } : { code, senderId: message.senderId, id },
    );
    return true;
  };
  const bot = message.fromSelf === true || message.senderIsBot === true;
  if (bot) return refuse('not_allowed');
  const parsed = ctx.tokens.verify(token);
  if (parsed === undefined) return refuse('forged');
  const { id, choice } = parsed;
  const followed = ctx.followed.get(id);
  let entry = ctx.byId.get(id) ?? ctx.mirrors.get(id) ?? (followed && (await load(ctx, followed)));
  if (entry === undefined) {
    if (ctx.recentlySettled.has(id)) return refuse('settled', id);
    const found = await loadRemote(ctx, id);
    if (found === 'settled') return refuse('settled', id);
    // It may have been restored or settled while the store answered; otherwise it is held from
    // now on, so a click held for its delivery ends at the decision, the deadline or close().
    entry =
      ctx.byId.get(id) ?? ctx.mirrors.get(id) ?? (found === undefined ? undefined : loadedAt(ctx, found));
    if (entry === undefined) return refuse(found === undefined ? 'unknown_confirmation' : 'settled', id);
    if (isDone(entry)) return refuse('settled', id);
  }
  const { state, sentSeq, deliveredSeq } = entry.conf;
  const inFlight = state === 'prompted' && sentSeq !== null && deliveredSeq === null;
  if (inFlight && arrival >= sentSeq && (entry.waiting?.length ?? 0) < MAX_WAITING) {
    // The card's send is in flight: the click waits for it to settle (or the confirmation to end).
    const waiting = entry.waiting ?? [];
    entry.waiting = waiting;
    await new Promise<void>((resolve) => waiting.push(resolve));
    if (isDone(entry)) return refuse('settled', id);
  }
  const result = dispatch(ctx, entry, {
    type: 'card',
    choice,
    senderId: message.senderId,
    sessionKey: message.sessionKey,
    promptSession: entry.conf.record.sessionKey,
    arrival,
    bot,
  });
  if (result === undefined) return refuse('settled', id);
  if (result.kind === 'refuse') return refuse(result.code, id);
  return true; // a click on the gate's button is consumed whether it counts or not
}

/** Holds another gate's record read for a click, unless this gate closed or settled it meanwhile. */
function loadedAt(ctx: GateContext, record: ConfirmationRecord): Entry | undefined {
  if (ctx.closed || ctx.recentlySettled.has(record.id)) return undefined;
  return mirror(ctx, record, record.deliveredAt === undefined ? null : ++ctx.arrivals);
}

/** The key under which a platform event is remembered: bounded in length whatever the id. */
export function eventKeyOf(channel: string, eventId: string): string {
  return toRememberedId(`${channel}\u0000${eventId}`);
}
