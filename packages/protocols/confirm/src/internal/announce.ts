import type { ConfirmDecision } from '../decision.js';
import type { ConfirmEvents } from '../events.js';
import type { ResumeHandler } from '../types.js';
import type { ConfirmationEffect } from './confirmation.js';
import { type Entry, fail, type GateContext } from './context.js';
import type { Draft } from './draft.js';
import { inTime } from './step-decided.js';

// What the runner (runner.ts) tells outside the gate about a confirmation: its delivered prompt,
// once the delivery is written, and its decision, once it is recorded — to listeners, the waiting
// caller and a resume handler.

/** Announces a delivered prompt once its delivery is written, so every replica reading the store can judge by it. */
export function announce(
  ctx: GateContext,
  entry: Entry,
  effect: Extract<ConfirmationEffect, { type: 'announce' }>,
): void {
  const { record } = entry.conf;
  const { shown } = effect;
  const announced: Draft<ConfirmEvents['prompted']> = {
    id: record.id,
    sessionKey: record.sessionKey,
    step: effect.step,
    reprompt: effect.reprompt,
  };
  if (shown !== undefined) announced.text = shown.text;
  if (shown?.card !== undefined) announced.card = shown.card;
  if (effect.order !== undefined) announced.order = effect.order;
  if (shown?.messageId !== undefined) announced.messageId = shown.messageId;
  void entry.io.then(() => ctx.events.emit('prompted', announced));
}

/**
 * Hands a recorded decision to listeners and the waiting caller, then to the resume handler of a
 * restored confirmation (the promise of that handler's run, when there is one).
 */
export function finish(
  ctx: GateContext,
  entry: Entry,
  recorded: ConfirmDecision,
  prompted: boolean,
): Promise<void> | undefined {
  const { record, restored, remote } = entry.conf;
  const decision = inTime(recorded, prompted ? record.expiresAt : undefined);
  ctx.events.emit('decided', { decision });
  entry.resolve?.(decision);
  const handler = ctx.resume[record.action.name];
  if (!restored || remote || handler === undefined || decision.reason === 'closed') return undefined;
  return resume(ctx, handler, decision, record.id);
}

/** Runs a resume handler; a throw or a rejection is reported, never escapes. */
async function resume(
  ctx: GateContext,
  handler: ResumeHandler,
  decision: ConfirmDecision,
  id: string,
): Promise<void> {
  try {
    await handler(decision, ctx.gate as NonNullable<typeof ctx.gate>); // set before any request or restore
  } catch (error) {
    fail(ctx, error, id);
  }
}
