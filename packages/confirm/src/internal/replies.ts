import type { InboundMessage } from '@parley/bus';
import type { ConfirmEvents } from '../events.js';
import { normalizeExact, parseReply } from '../vocabulary.js';
import { eventKeyOf, type GateContext, MAX_WAITING } from './context.js';
import { run, viewOf } from './lifecycle.js';
import type { Entry } from './records.js';
import { mayAnswer, step } from './step.js';

/**
 * Judges an inbound message of a session with a pending confirmation (this gate's, or one it
 * follows from another gate), or one decided within `afterDecisionMs`; returns whether it is
 * consumed. The rules themselves are in `step`.
 */
export function onMessage(ctx: GateContext, message: InboundMessage): boolean | Promise<boolean> {
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
  if (entry.deliveredAt === undefined && !entry.done && !bot && mayAnswer(entry, message.senderId)) {
    // The prompt is in flight: the reply waits for its send to settle (or the confirmation to end),
    // then is judged by when it was written against when the prompt was delivered.
    return new Promise<boolean>((resolve) => {
      const waiting = entry.waiting ?? [];
      if (waiting.length >= MAX_WAITING) {
        resolve(heldTooMany(ctx, entry, message));
        return;
      }
      waiting.push(() => resolve(onMessage(ctx, message)));
      entry.waiting = waiting;
    });
  }
  const result = step(
    viewOf(ctx, entry),
    {
      type: 'reply',
      text: message.text,
      senderId: message.senderId,
      createdAt: message.createdAt ?? message.receivedAt,
      bot,
    },
    ctx.clock.now(),
    ctx.rules,
  );
  if ((result.kind === 'pass' || result.kind === 'ignore') && result.code !== undefined)
    ignore(ctx, message, entry.id, result.code);
  const counted = result.kind !== 'pass' && result.kind !== 'ignore';
  if (counted && event !== undefined) ctx.countedEvents.add(event, entry.id);
  return run(ctx, entry, result);
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

function heldTooMany(ctx: GateContext, entry: Entry, message: InboundMessage): boolean {
  ctx.events.emit('ignored', {
    id: entry.id,
    sessionKey: message.sessionKey,
    senderId: message.senderId,
    code: 'before_delivery',
  });
  return true;
}

/**
 * A message of a session whose confirmation was decided lately: an approver's answer to it (a
 * reply word, or a step's exact text) is consumed, anything else goes on to the agent.
 */
function afterDecision(ctx: GateContext, message: InboundMessage): boolean {
  const lately = ctx.lately.size === 0 ? undefined : ctx.lately.get(message.sessionKey);
  if (lately === undefined) return false;
  if (ctx.clock.now() >= lately.until) {
    ctx.lately.delete(message.sessionKey);
    return false;
  }
  if (message.fromSelf === true || message.senderIsBot === true || !mayAnswer(lately, message.senderId))
    return false;
  const exact = normalizeExact(message.text);
  const isAnswer =
    parseReply(message.text, ctx.vocabulary) !== 'unrecognised' ||
    (lately.steps?.some((item) => normalizeExact(item.expect) === exact) ?? false);
  if (!isAnswer) return false;
  ignore(ctx, message, lately.id, 'after_decision');
  return true;
}
