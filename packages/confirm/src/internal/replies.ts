import type { InboundMessage } from '@parley/bus';
import type { ConfirmEvents } from '../events.js';
import { eventKeyOf, type GateContext, type LatelyEntry, MAX_WAITING } from './context.js';
import { lateText, notify } from './prompts.js';
import { consumed, dispatch } from './runner.js';
import { afterDecision as afterDecisionRule } from './step-decided.js';

/**
 * Judges an inbound message of a session with a pending confirmation (this gate's, or one it
 * follows from another gate), or one decided within `afterDecisionMs`; returns whether it is
 * consumed. `arrival` is the number the gate gave the message when it reached it. The rules
 * themselves are in `step`; a reply the rules hold (it carries a platform order and the prompt is
 * in flight) waits for the send's receipt, the decision, the deadline or close().
 */
export function onMessage(
  ctx: GateContext,
  message: InboundMessage,
  arrival: number,
): boolean | Promise<boolean> {
  if (message.kind !== 'message') return false;
  const { sessionKey } = message;
  const entry =
    ctx.active.get(sessionKey) ?? (ctx.mirrorOf.size === 0 ? undefined : ctx.mirrorOf.get(sessionKey));
  const event = message.eventId === undefined ? undefined : eventKeyOf(message.channel, message.eventId);
  const countedFor = event === undefined ? undefined : ctx.countedEvents.get(event);
  if (countedFor !== undefined) {
    ignore(ctx, message, countedFor, 'stale_reply'); // a redelivery of an event that already counted: consumed
    return true;
  }
  if (entry === undefined) return afterDecision(ctx, message);
  const bot = message.fromSelf === true || message.senderIsBot === true;
  const lately = ctx.lately.size === 0 ? undefined : ctx.lately.get(sessionKey);
  const answersDecided =
    lately !== undefined &&
    afterDecisionRule(
      lately,
      { text: message.text, senderId: message.senderId, bot },
      ctx.clock.now(),
      ctx.rules,
    ) === 'absorb';
  const waiting = entry.waiting ?? [];
  const result = dispatch(ctx, entry, {
    type: 'reply',
    text: message.text,
    senderId: message.senderId,
    arrival,
    order: message.order,
    bot,
    full: waiting.length >= MAX_WAITING,
    answersDecided,
  });
  if (result === undefined) return afterDecision(ctx, message); // settled meanwhile
  if (result.kind === 'hold') {
    entry.waiting = waiting;
    return new Promise<boolean>((resolve) => {
      waiting.push(() => resolve(onMessage(ctx, message, arrival)));
    });
  }
  if (result.kind === 'absorbed') return afterDecision(ctx, message);
  if ((result.kind === 'pass' || result.kind === 'ignore') && result.code !== undefined)
    ignore(ctx, message, entry.conf.record.id, result.code);
  const counted = result.kind !== 'pass' && result.kind !== 'ignore';
  if (counted && event !== undefined) ctx.countedEvents.add(event, entry.conf.record.id);
  return consumed(result);
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
 * A message of a session whose confirmation was decided lately: an approver's answer to it is
 * consumed (and the person told, once, what was decided); anything else goes on to the agent.
 */
function afterDecision(ctx: GateContext, message: InboundMessage): boolean {
  const lately = ctx.lately.size === 0 ? undefined : ctx.lately.get(message.sessionKey);
  if (lately === undefined) return false;
  const bot = message.fromSelf === true || message.senderIsBot === true;
  const verdict = afterDecisionRule(
    lately,
    { text: message.text, senderId: message.senderId, bot },
    ctx.clock.now(),
    ctx.rules,
  );
  if (verdict === 'forget') ctx.lately.delete(message.sessionKey);
  if (verdict !== 'absorb') return false;
  ignore(ctx, message, lately.id, 'after_decision');
  tellLate(ctx, lately);
  return true;
}

function tellLate(ctx: GateContext, lately: LatelyEntry): void {
  if (lately.told === true || lately.outcome === undefined) return;
  lately.told = true;
  notify(ctx, lately.address, lately.id, lateText(ctx, lately, lately.outcome));
}
