// A follow-up's record in the durable kernel, and the pure steps over it.
import type { JsonValue, KernelStep, RecordCodec } from '@parley/core';
import type { FollowUp, FollowUpRefusalCode } from './follow-up-types.js';
import { isRecord } from './internal/record.js';

/** @internal What a step decided: done (its value was written), or why not (nothing changed). */
export type Verdict = 'ok' | FollowUpRefusalCode;

/** @internal The kernel's codec of a follow-up record (format 1). */
export const FOLLOW_UP_RECORD: RecordCodec<FollowUp> = {
  kind: 'parley.follow-up',
  version: 1,
  decode: (value) => {
    const ok =
      isRecord(value) &&
      value.kind === 'parley.follow-up' &&
      typeof value.id === 'string' &&
      Number.isFinite(value.dueAt) &&
      Number.isFinite(value.createdAt) &&
      (value.sentAt === null || Number.isFinite(value.sentAt)) &&
      (value.sendingAt === null || Number.isFinite(value.sendingAt)) &&
      'payload' in value;
    return ok ? (value as unknown as FollowUp) : undefined; // every field checked just above
  },
  encode: (value) => ({ ...value }) as unknown as JsonValue, // plain JSON
};

/** @internal A change of a follow-up: the next value, or the refusal that leaves it as it is. */
type Change<E> = (current: FollowUp | undefined, event: E, now: number) => FollowUp | FollowUpRefusalCode;

/** @internal A kernel step of a change; its one effect is the verdict. */
export function stepOf<E>(change: Change<E>): KernelStep<FollowUp, E, Verdict> {
  return (current, event, now) => {
    const next = change(current, event, now);
    return typeof next === 'string' ? { value: current, effects: [next] } : { value: next, effects: ['ok'] };
  };
}

/** @internal Stores a new follow-up. */
export const scheduleStep = stepOf<FollowUp>((current, followUp) =>
  current === undefined ? followUp : 'exists',
);

/** @internal Claims an unsent, unclaimed follow-up for sending (made under the lease of its record). */
export const claimStep = stepOf<undefined>((current, _, now) =>
  current?.sentAt === null && current.sendingAt === null ? { ...current, sendingAt: now } : 'conflict',
);

/** @internal Marks the send claimed at `sendingAt` as sent (`true`) or gives the claim back (`false`). */
export const settleStep = stepOf<{ readonly sendingAt: number; readonly sent: boolean }>(
  (current, { sendingAt, sent }, now) => {
    if (current?.sentAt !== null || current.sendingAt !== sendingAt) return 'conflict';
    return sent ? { ...current, sentAt: now } : { ...current, sendingAt: null };
  },
);

/** @internal Settles an unknown outcome as the host decided. */
export const resolveStep = stepOf<'sent' | 'unsent'>((current, outcome, now) => {
  if (current === undefined) return 'not_found';
  if (current.sentAt !== null) return 'already_sent';
  if (current.sendingAt === null) return 'not_claimed';
  return outcome === 'sent' ? { ...current, sentAt: now } : { ...current, sendingAt: null };
});

/** @internal Why a step refused with `verdict` for follow-up `id`. */
export function reasonFor(id: string, verdict: Exclude<Verdict, 'ok'>, value: FollowUp | undefined): string {
  const when = new Date(value?.sendingAt ?? 0).toISOString();
  const reasons: Partial<Record<Verdict, string>> = {
    exists: `a follow-up ${id} is stored already`,
    already_sent: `${id} was sent before`,
    not_claimed: `${id} was never claimed for sending`,
    outcome_unknown: `${id} was claimed for sending at ${when} and never marked sent`,
    conflict: `the record of ${id} changed`,
  };
  return reasons[verdict] ?? `no follow-up ${id} is stored`;
}
