import type { InboundMessage } from '@parley/bus';
import type { ConfirmEvents, DecisionReason } from '../types.js';
import { normalizeExact, normalizeReply, parseReply } from '../vocabulary.js';
import { clip, type GateContext, mayDecide } from './context.js';
import { sendPrompt, settle } from './lifecycle.js';
import { persist } from './persistence.js';
import type { Entry } from './records.js';
import type { CardChoice } from './token.js';

/**
 * Judges an inbound message of a session with a pending confirmation (this gate's, or one it
 * follows from another gate); returns whether it is consumed. Bots, users who may not answer and
 * replies written before the prompt do not count.
 */
export function onMessage(ctx: GateContext, message: InboundMessage): boolean {
  const { sessionKey } = message;
  const entry =
    ctx.active.get(sessionKey) ?? (ctx.mirrorOf.size === 0 ? undefined : ctx.mirrorOf.get(sessionKey));
  if (entry === undefined || message.kind !== 'message') return false;
  const ignore = (code: ConfirmEvents['ignored']['code'], consumed: boolean): boolean => {
    ctx.events.emit('ignored', {
      id: entry.id,
      sessionKey: entry.sessionKey,
      senderId: message.senderId,
      code,
    });
    return consumed;
  };
  if (message.fromSelf === true || message.senderIsBot === true) return ignore('bot', false);
  if (!mayDecide(entry, message.senderId)) return ignore('not_allowed', false);
  const createdAt = message.createdAt ?? message.receivedAt;
  if (createdAt < entry.firstPromptedAt) return ignore('stale_reply', false); // written before the prompt
  if (createdAt < entry.promptedAt) return ignore('stale_reply', true); // an answer to an earlier prompt
  if (message.eventId !== undefined) {
    const event = `${message.channel}\u0000${message.eventId}`;
    if (ctx.countedEvents.has(event)) return ignore('stale_reply', true); // a redelivery: it counted once
    ctx.countedEvents.add(event);
  }
  answer(ctx, entry, message.text, message.senderId);
  return true;
}

/** Applies an allowed user's reply (or card `choice`) to a prompted entry. */
export function answer(
  ctx: GateContext,
  entry: Entry,
  text: string,
  senderId: string,
  choice?: CardChoice,
): void {
  const { clock } = ctx;
  if (entry.restored && !entry.remote && ctx.resume[entry.action.name] === undefined) {
    settle(ctx, entry, 'aborted', 'expired', {
      extra: { decidedBy: senderId },
      notice: ctx.texts.expired(entry.summary),
    });
    return;
  }
  const reason: DecisionReason = choice === undefined ? 'reply' : 'card';
  const by = {
    decidedBy: senderId,
    ...(choice === undefined ? { reply: clip(normalizeReply(text)) } : {}),
  };
  if (entry.steps !== undefined && choice === undefined) {
    const expected = (entry.steps[entry.step] as { expect: string }).expect;
    if (normalizeExact(text) !== normalizeExact(expected)) {
      settle(ctx, entry, 'cancelled', 'step_mismatch', {
        extra: { ...by, reply: clip(normalizeExact(text)), failedStep: entry.step + 1 },
      });
      return;
    }
    entry.step++;
    if (entry.step === entry.steps.length) {
      settle(ctx, entry, 'confirmed', 'reply', { extra: { ...by, reply: clip(normalizeExact(text)) } });
      return;
    }
    entry.promptedAt = clock.now();
    persist(ctx, entry);
    void sendPrompt(ctx, entry, 'step');
    return;
  }
  const verdict = choice ?? parseReply(text, ctx.vocabulary);
  if (verdict === 'confirm') {
    settle(ctx, entry, 'confirmed', reason, { extra: by });
    return;
  }
  if (verdict === 'always') {
    const allowUntil = ctx.standingMs === undefined ? undefined : clock.now() + ctx.standingMs;
    settle(ctx, entry, 'confirmed', reason, { extra: allowUntil === undefined ? by : { ...by, allowUntil } });
    return;
  }
  if (verdict === 'cancel') {
    settle(ctx, entry, 'cancelled', reason, { extra: by });
    return;
  }
  if (ctx.unrecognised === 'reprompt' && entry.reprompts < ctx.maxReprompts) {
    entry.reprompts++;
    entry.promptedAt = clock.now();
    persist(ctx, entry);
    void sendPrompt(ctx, entry, 'reprompt');
    return;
  }
  settle(ctx, entry, 'cancelled', 'unrecognised', { extra: by });
}
