import type { InboundMessage } from '@parley/bus';
import type { JsonValue } from '@parley/core';
import type { ConfirmEvents } from '../events.js';
import { type GateContext, MAX_WAITING } from './context.js';
import { loadRemote } from './persistence.js';
import { dispatch, isDone } from './runner.js';
import { follow } from './sync.js';

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
  let entry = ctx.byId.get(id) ?? ctx.mirrors.get(id);
  if (entry === undefined) {
    if (ctx.recentlySettled.has(id)) return refuse('settled', id);
    const found = await loadRemote(ctx, id);
    if (found === 'settled') return refuse('settled', id);
    // It may have been restored or settled while the store answered; otherwise it is followed from
    // now on, so a click held for its delivery ends at the decision, the deadline or close().
    entry = ctx.byId.get(id) ?? ctx.mirrors.get(id) ?? (found === undefined ? undefined : follow(ctx, found));
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
