// What a follow-ups store does with one record: read it, write a step on it, arm its timer, and
// send it under its lease when it fires. Module functions over the store's state, made once.
import {
  type Clock,
  type Committed,
  type Emitter,
  isParleyError,
  type JsonValue,
  type Kernel,
  KernelError,
  type KernelStep,
  type Lease,
  type TimerHandle,
} from '@parley/core';
import { claimStep, FOLLOW_UP_RECORD, reasonFor, settleStep, type Verdict } from './follow-up-record.js';
import type {
  FollowUp,
  FollowUpRefusalCode,
  FollowUpResult,
  FollowUpsEvents,
  FollowUpsOptions,
} from './follow-up-types.js';

/** @internal The state of one follow-ups store, shared by its operations. */
export interface FollowUpsState<TPayload extends JsonValue> {
  readonly kernel: Kernel;
  readonly clock: Clock;
  readonly prefix: string;
  readonly send: FollowUpsOptions<TPayload>['send'];
  readonly maxArmed: number;
  readonly sendLeaseMs: number;
  readonly events: Emitter<FollowUpsEvents>;
  readonly timers: Map<string, TimerHandle>;
  readonly running: Set<Promise<void>>;
  /** Claims this process holds after a send that failed for certain but could not be given back. */
  readonly unsent: Map<string, Lease & { readonly sendingAt: number }>;
  closed: boolean;
}

type State<TPayload extends JsonValue> = FollowUpsState<TPayload>;
/** @internal A refusal of a follow-ups operation. */
export type Refusal = Extract<FollowUpResult, { ok: false }>;

/** @internal A refusal with `code`. */
export const refuse = (code: FollowUpRefusalCode, message: string): Refusal => ({
  ok: false,
  code,
  message,
  reason: message,
});

/** @internal The message of a thrown value. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The most failed sends whose claim could not be given back that one process remembers. */
const MAX_KNOWN_UNSENT = 1_000;

/** @internal The committed follow-up `id`, or why it cannot be read; a store failure is thrown. */
export async function load<TPayload extends JsonValue>(
  state: State<TPayload>,
  id: string,
): Promise<{ readonly found: Committed<FollowUp> | undefined } | Refusal> {
  try {
    const found = await state.kernel.read(`${state.prefix}${id}`, FOLLOW_UP_RECORD);
    if (found !== undefined && found.value.id !== id) {
      return refuse('corrupt_record', `the record of ${id} holds follow-up ${found.value.id}`);
    }
    return { found };
  } catch (error) {
    for (const code of ['corrupt_record', 'record_version'] as const) {
      if (isParleyError(error, code)) return refuse(code, reasonOf(error));
    }
    throw error;
  }
}

/** @internal Runs `step` on the fresh record (under `lease` when given); its verdict, or a refusal. */
export async function write<TPayload extends JsonValue, E>(
  state: State<TPayload>,
  id: string,
  step: KernelStep<FollowUp, E, Verdict>,
  event: E,
  lease?: Lease,
): Promise<FollowUpResult<TPayload>> {
  const key = `${state.prefix}${id}`;
  const done = await state.kernel.apply(
    key,
    FOLLOW_UP_RECORD,
    step,
    event,
    lease === undefined ? {} : { lease },
  );
  if (!done.ok) {
    switch (done.code) {
      case 'lease_held':
        return refuse('in_flight', `${id} is being sent by another process (${done.message})`);
      case 'lease_lost':
      case 'write_conflict':
        return refuse('conflict', `the record of ${id} changed: ${done.message}`);
      case 'corrupt_record':
      case 'record_version':
        return refuse(done.code, done.message);
      default:
        throw new KernelError('store_failed', done.message, {
          details: { key: done.key, code: done.code },
        });
    }
  }
  const verdict = done.effects[0] as Verdict; // every step has one verdict
  const value = done.committed?.value as FollowUp; // an 'ok' step always leaves a value
  return verdict === 'ok'
    ? { ok: true, followUp: value as FollowUp<TPayload> } // payloads are the host's JSON
    : refuse(verdict, reasonFor(id, verdict, value));
}

/** @internal Arms the timer of `followUp`, replacing the one it had; refused past `maxArmed`. */
export function arm<TPayload extends JsonValue>(
  state: State<TPayload>,
  followUp: FollowUp<TPayload>,
): FollowUpResult<TPayload> {
  if (state.closed) return refuse('closed', 'the follow-ups were closed');
  const { timers, clock, running, maxArmed } = state;
  const { id } = followUp;
  if (!timers.has(id) && timers.size >= maxArmed) {
    return refuse('too_many', `${maxArmed} follow-ups are armed already; ${id} stays stored, unarmed`);
  }
  clock.clearTimeout(timers.get(id));
  const timer = clock.setTimeout(
    () => {
      timers.delete(id);
      const run = fire(state, id).finally(() => running.delete(run));
      running.add(run);
    },
    Math.max(0, followUp.dueAt - clock.now()),
  );
  timers.set(id, timer);
  return { ok: true, followUp };
}

async function fire<TPayload extends JsonValue>(state: State<TPayload>, id: string): Promise<void> {
  const { events, clock, kernel } = state;
  const skipped = (): void =>
    void events.emit('skipped', { id, code: 'claimed', reason: 'claimed', at: clock.now() });
  try {
    const read = await load(state, id);
    const stored = 'found' in read ? read.found?.value : undefined;
    if (stored === undefined || stored.sentAt !== null) return;
    if (stored.sendingAt !== null) return skipped();
    const taken = await kernel.acquire(`${state.prefix}${id}`, FOLLOW_UP_RECORD, {
      ttlMs: state.sendLeaseMs,
    });
    if (!taken.ok) {
      if (taken.code === 'lease_held') return skipped();
      throw new Error(taken.message);
    }
    try {
      await sendUnder(state, id, taken.lease);
    } finally {
      await kernel.release(taken.lease);
    }
  } catch (error) {
    const message = reasonOf(error);
    events.emit('failed', { id, message, reason: message, at: clock.now() });
  }
}

/** Claims, sends and marks `id` under `lease`. */
async function sendUnder<TPayload extends JsonValue>(
  state: State<TPayload>,
  id: string,
  lease: Lease,
): Promise<void> {
  const { events, clock, unsent } = state;
  const claimed = await write(state, id, claimStep, undefined, lease);
  if (!claimed.ok)
    return void events.emit('skipped', { id, code: 'claimed', reason: 'claimed', at: clock.now() }); // changed since read
  const sendingAt = claimed.followUp.sendingAt as number; // just claimed
  try {
    await state.send(claimed.followUp);
  } catch (error) {
    // the send failed for certain: give the claim back so the next `arm` sends it
    const back = await write(state, id, settleStep, { sendingAt, sent: false }, lease).catch(
      (lost: unknown): Refusal => refuse('conflict', reasonOf(lost)),
    );
    if (!back.ok) {
      // This process knows; `arm` here gives it back (another process cannot know). At most
      // MAX_KNOWN_UNSENT are kept: a forgotten one reads as an unknown outcome, the safe way.
      if (unsent.size >= MAX_KNOWN_UNSENT) unsent.delete(unsent.keys().next().value as string);
      unsent.set(id, { ...lease, sendingAt });
      throw new Error(`${reasonOf(error)} (and the claim could not be given back: ${back.reason})`);
    }
    throw error;
  }
  const marked = await write(state, id, settleStep, { sendingAt, sent: true }, lease);
  if (!marked.ok) throw new Error(`the record of ${id} changed while it was sent: ${marked.reason}`);
  events.emit('sent', { id, dueAt: marked.followUp.dueAt, sentAt: marked.followUp.sentAt as number });
}

/** @internal Gives back a claim whose send failed here for certain, when nobody took the record since (same fence). */
export async function giveBack<TPayload extends JsonValue>(
  state: State<TPayload>,
  id: string,
  found: Committed<FollowUp>,
): Promise<FollowUpResult<TPayload> | undefined> {
  const mine = state.unsent.get(id);
  if (mine === undefined || found.fence !== mine.token || found.value.sendingAt !== mine.sendingAt)
    return undefined;
  const back = await write(state, id, settleStep, { sendingAt: mine.sendingAt, sent: false }); // `in_flight` while its lease is on
  if (!back.ok) return back;
  state.unsent.delete(id);
  return arm(state, back.followUp);
}
