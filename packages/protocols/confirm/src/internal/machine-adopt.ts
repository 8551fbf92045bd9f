import type { Confirmation, ConfirmationEffect, ConfirmationTransition } from './confirmation.js';
import { type Draft, recordDraft, stateDraft } from './draft.js';
import type { ConfirmationRecord } from './records.js';
import { adopt } from './step-admit.js';

// The confirm step's side of replica sync and restarts (machine.ts calls it): what a newer stored
// version of a confirmation's record changes here, and its window timed by the stored deadline.

/** Times the window of `next` by its record's deadline: what is left of it (over at once when it passed). */
export function timeBy(next: Draft<Confirmation>, now: number): ConfirmationEffect {
  const delayMs = Math.max(0, next.record.expiresAt - now);
  next.windowOver = delayMs === 0;
  return { type: 'timer', delayMs };
}

/**
 * Takes what a newer stored version of its record changes (the pure `adopt` rule): a new prompt
 * went out from another gate (unanswerable until its delivery is known), a delivery is learnt
 * now, the deadline moved. A record is only ever replaced by a newer version of itself:
 * `undefined` when the stored one is not newer.
 */
export function adoptStored(
  c: Confirmation,
  stored: ConfirmationRecord,
  seq: number,
  now: number,
): ConfirmationTransition | undefined {
  const held = c.record;
  const view = {
    rev: held.rev,
    step: held.step,
    reprompts: held.reprompts,
    promptedAt: held.promptedAt,
    delivered: c.deliveredSeq !== null,
    expiresAt: held.expiresAt,
  };
  const adoption = adopt(view, stored);
  if (adoption === undefined) return undefined;
  const { prompt, delivered } = adoption;
  // A new prompt, or a delivery learnt now, replaces what the record says of the current prompt's.
  const r = recordDraft(held, prompt === undefined && delivered === undefined);
  r.rev = stored.rev;
  const next = stateDraft(c);
  next.record = r;
  if (prompt !== undefined) {
    // Sent by another gate, at a moment this one did not see.
    r.step = prompt.step;
    r.reprompts = prompt.reprompts;
    r.promptedAt = prompt.promptedAt;
    next.sentSeq = 0;
    next.deliveredSeq = null;
  }
  if (delivered !== undefined) {
    r.deliveredAt = delivered.deliveredAt;
    if (delivered.order !== undefined) r.order = delivered.order;
    next.deliveredSeq = seq;
    next.seen = true;
  }
  const effects: ConfirmationEffect[] = [];
  if (adoption.expiresAt !== undefined) {
    r.expiresAt = adoption.expiresAt;
    effects.push(timeBy(next, now));
  }
  if (next.deliveredSeq !== null) effects.push({ type: 'wake' }); // answers held while it was in flight
  return { next, effects };
}
