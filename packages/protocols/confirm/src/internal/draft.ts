import type { Confirmation } from './confirmation.js';
import type { ConfirmationRecord } from './records.js';

// The copies one step of the confirm machine (machine.ts) changes: a new object per state or
// record it returns, built field by field in one order — one shape for every confirmation and
// record a gate makes, so reading them stays fast — instead of spreading the whole state once per
// change. A draft is changed only by the step that made it, before the step returns it; what the
// step was given is never changed.

/** A copy that the step making it may still fill in. */
export type Draft<T> = { -readonly [K in keyof T]: T[K] };

/** A new confirmation state with the fields of `c`, for one step to change. */
export function stateDraft(c: Confirmation): Draft<Confirmation> {
  return {
    record: c.record,
    state: c.state,
    restored: c.restored,
    remote: c.remote,
    resumable: c.resumable,
    sentSeq: c.sentSeq,
    deliveredSeq: c.deliveredSeq,
    seen: c.seen,
    toldEarly: c.toldEarly,
    windowOver: c.windowOver,
    sends: c.sends,
    pages: c.pages,
    after: c.after,
  };
}

/**
 * A new version of a record with the fields of `r`, for one step to change; without its delivery
 * (`deliveredAt`, `order`) unless `delivered` — the record of a prompt not sent yet.
 */
export function recordDraft(r: ConfirmationRecord, delivered: boolean): Draft<ConfirmationRecord> {
  const next: Draft<ConfirmationRecord> = {
    rev: r.rev,
    id: r.id,
    sessionKey: r.sessionKey,
    action: r.action,
    summary: r.summary,
    requester: r.requester,
    approvers: r.approvers,
    steps: r.steps,
    step: r.step,
    reprompts: r.reprompts,
    timeoutMs: r.timeoutMs,
    requestedAt: r.requestedAt,
    firstPromptedAt: r.firstPromptedAt,
    promptedAt: r.promptedAt,
    expiresAt: r.expiresAt,
  };
  // Optional fields last, in the order a record gains them: its owner, then its delivery.
  if (r.owner !== undefined) next.owner = r.owner;
  if (delivered && r.deliveredAt !== undefined) next.deliveredAt = r.deliveredAt;
  if (delivered && r.order !== undefined) next.order = r.order;
  return next;
}

/** Every field of a pending record, in `recordDraft`'s order; the type refuses a list that misses one. */
const RECORD_FIELDS = [
  'rev',
  'id',
  'sessionKey',
  'action',
  'summary',
  'requester',
  'approvers',
  'steps',
  'step',
  'reprompts',
  'timeoutMs',
  'requestedAt',
  'firstPromptedAt',
  'promptedAt',
  'expiresAt',
  'owner',
  'deliveredAt',
  'order',
] as const satisfies readonly (keyof ConfirmationRecord)[];
type Unlisted = Exclude<keyof ConfirmationRecord, (typeof RECORD_FIELDS)[number]>;
const everyField: [Unlisted] extends [never] ? true : Unlisted = true;
void everyField;

/**
 * Whether two records hold the very same values in every field (objects by identity, as drafts
 * share them): then one object can stand for both.
 */
export function sameRecord(a: ConfirmationRecord, b: ConfirmationRecord): boolean {
  for (const field of RECORD_FIELDS) if (a[field] !== b[field]) return false;
  return true;
}
