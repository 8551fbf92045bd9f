import {
  type Clock,
  type Committed,
  createEmitter,
  createKernel,
  createOwnerId,
  isParleyError,
  type JsonValue,
  KernelError,
  type KernelStep,
  type Lease,
  systemClock,
  type TimerHandle,
} from '@parley/core';
import { ChatFlowError } from './errors.js';
import {
  FOLLOW_UP_RECORD,
  reasonFor,
  resolveStep,
  scheduleStep,
  settleStep,
  claimStep,
  type Verdict,
} from './follow-up-record.js';
import {
  DEFAULT_MAX_ARMED_FOLLOW_UPS,
  DEFAULT_SEND_LEASE_MS,
  type FollowUp,
  type FollowUpRefusalCode,
  type FollowUpResult,
  type FollowUps,
  type FollowUpsEvents,
  type FollowUpsOptions,
} from './follow-up-types.js';

/**
 * Creates durable one-shot follow-ups in a Store: a host schedules one ("remind me in 7 days") with
 * an absolute due time, it fires on the injected clock and is delivered by `send` at most once.
 * The records are kept through the durable kernel of `@parley/core`. When one fires, this process
 * takes the lease of its record (an owner, an expiry `sendLeaseMs` away and a fencing token) and
 * *claims* it under that lease (`sendingAt`), sends it, then marks it `sentAt` under the same lease;
 * of two processes that armed it, only the lease holder sends, and a sender whose lease expired or
 * was taken over cannot mark it. A restarted process calls `arm(id)`: armed again, or sent at once
 * when it fell due while nobody ran. A claim still under a valid lease is `in_flight`; one without
 * `sentAt` whose lease ended means a send whose outcome is unknown (a crash between the claim and
 * the mark): `arm` refuses it `outcome_unknown` with an `outcome-unknown` event and never resends it
 * by itself; the host checks and calls `resolve(id, 'sent' | 'unsent')`. A `send` that throws
 * releases the claim (event `failed`) for the next `arm`. Use it for anything a flow promises to do
 * later, after its session has closed. `schedule`, `arm`, `resolve` and `get` reject with a
 * `KernelError` `store_failed` (its `cause` the store's error) when the store throws.
 *
 * @throws ChatFlowError `invalid_argument` when `maxArmed` or `sendLeaseMs` is not a positive integer.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { createFollowUps } from '@parley/chat-flow';
 *
 * const clock = createManualClock({ now: 0 });
 * const store = createMemoryStore({ clock });
 * const sent: string[] = [];
 * const followUps = createFollowUps<string>({ store, clock, send: (f) => void sent.push(f.payload) });
 * await followUps.schedule('sess_1', 7 * 86_400_000, 'Check that the content stays down');
 * followUps.close(); // the process stops; the follow-up stays stored
 *
 * const restarted = createFollowUps<string>({ store, clock, send: (f) => void sent.push(f.payload) });
 * await restarted.arm('sess_1');
 * clock.advance(7 * 86_400_000);
 * await restarted.settled();
 * console.log(sent, (await restarted.get('sess_1'))?.sentAt); // [ 'Check that the content stays down' ] 604800000
 * ```
 */
export function createFollowUps<TPayload extends JsonValue = JsonValue>(
  options: FollowUpsOptions<TPayload>,
): FollowUps<TPayload> {
  const { store, send } = options;
  const clock: Clock = options.clock ?? systemClock;
  const prefix = options.keyPrefix ?? 'follow-up:';
  const maxArmed = positive(options.maxArmed ?? DEFAULT_MAX_ARMED_FOLLOW_UPS, 'maxArmed');
  const sendLeaseMs = positive(options.sendLeaseMs ?? DEFAULT_SEND_LEASE_MS, 'sendLeaseMs');
  const kernel = createKernel({ store, clock, owner: createOwnerId('follow-ups') });
  const events = createEmitter<FollowUpsEvents>();
  const timers = new Map<string, TimerHandle>();
  const running = new Set<Promise<void>>();
  /** Claims this process holds after a send that failed for certain but could not be given back. */
  const unsent = new Map<string, Lease & { readonly sendingAt: number }>();
  let closed = false;
  const keyOf = (id: string): string => `${prefix}${id}`;
  type Refusal = Extract<FollowUpResult<TPayload>, { ok: false }>;
  const refuse = (code: FollowUpRefusalCode, message: string): Refusal => ({
    ok: false,
    code,
    message,
    reason: message,
  });
  const typed = (followUp: FollowUp): FollowUp<TPayload> => followUp as FollowUp<TPayload>; // payloads are the host's JSON

  /** The committed follow-up `id`, or why it cannot be read; a store failure is thrown. */
  async function load(id: string): Promise<{ readonly found: Committed<FollowUp> | undefined } | Refusal> {
    try {
      const found = await kernel.read(keyOf(id), FOLLOW_UP_RECORD);
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

  /** Runs `step` on the fresh record (under `lease` when given); its verdict, or a refusal. */
  async function write<E>(
    id: string,
    step: KernelStep<FollowUp, E, Verdict>,
    event: E,
    lease?: Lease,
  ): Promise<FollowUpResult<TPayload>> {
    const done = await kernel.apply(
      keyOf(id),
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
      ? { ok: true, followUp: typed(value) }
      : refuse(verdict, reasonFor(id, verdict, value));
  }

  function arm(followUp: FollowUp<TPayload>): FollowUpResult<TPayload> {
    if (closed) return refuse('closed', 'the follow-ups were closed');
    const { id } = followUp;
    if (!timers.has(id) && timers.size >= maxArmed) {
      return refuse('too_many', `${maxArmed} follow-ups are armed already; ${id} stays stored, unarmed`);
    }
    clock.clearTimeout(timers.get(id));
    const timer = clock.setTimeout(
      () => {
        timers.delete(id);
        const run = fire(id).finally(() => running.delete(run));
        running.add(run);
      },
      Math.max(0, followUp.dueAt - clock.now()),
    );
    timers.set(id, timer);
    return { ok: true, followUp };
  }

  async function fire(id: string): Promise<void> {
    const skipped = (): void =>
      void events.emit('skipped', { id, code: 'claimed', reason: 'claimed', at: clock.now() });
    try {
      const read = await load(id);
      const stored = 'found' in read ? read.found?.value : undefined;
      if (stored === undefined || stored.sentAt !== null) return;
      if (stored.sendingAt !== null) return skipped();
      const taken = await kernel.acquire(keyOf(id), FOLLOW_UP_RECORD, { ttlMs: sendLeaseMs });
      if (!taken.ok) {
        if (taken.code === 'lease_held') return skipped();
        throw new Error(taken.message);
      }
      try {
        await sendUnder(id, taken.lease);
      } finally {
        await kernel.release(taken.lease);
      }
    } catch (error) {
      const message = reasonOf(error);
      events.emit('failed', { id, message, reason: message, at: clock.now() });
    }
  }

  /** Claims, sends and marks `id` under `lease`. */
  async function sendUnder(id: string, lease: Lease): Promise<void> {
    const claimed = await write(id, claimStep, undefined, lease);
    if (!claimed.ok)
      return void events.emit('skipped', { id, code: 'claimed', reason: 'claimed', at: clock.now() }); // changed since read
    const sendingAt = claimed.followUp.sendingAt as number; // just claimed
    try {
      await send(claimed.followUp);
    } catch (error) {
      // the send failed for certain: give the claim back so the next `arm` sends it
      const back = await write(id, settleStep, { sendingAt, sent: false }, lease).catch(
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
    const marked = await write(id, settleStep, { sendingAt, sent: true }, lease);
    if (!marked.ok) throw new Error(`the record of ${id} changed while it was sent: ${marked.reason}`);
    events.emit('sent', { id, dueAt: marked.followUp.dueAt, sentAt: marked.followUp.sentAt as number });
  }

  /** Gives back a claim whose send failed here for certain, when nobody took the record since (same fence). */
  async function giveBack(
    id: string,
    found: Committed<FollowUp>,
  ): Promise<FollowUpResult<TPayload> | undefined> {
    const mine = unsent.get(id);
    if (mine === undefined || found.fence !== mine.token || found.value.sendingAt !== mine.sendingAt)
      return undefined;
    const back = await write(id, settleStep, { sendingAt: mine.sendingAt, sent: false }); // `in_flight` while its lease is on
    if (!back.ok) return back;
    unsent.delete(id);
    return arm(back.followUp);
  }

  return {
    async schedule(id, dueAt, payload) {
      if (closed) return refuse('closed', 'the follow-ups were closed');
      const fresh = { kind: 'parley.follow-up', id, dueAt, payload, createdAt: clock.now() } as const;
      const written = await write(id, scheduleStep, { ...fresh, sendingAt: null, sentAt: null });
      if (!written.ok) return written;
      events.emit('scheduled', { id, dueAt });
      return arm(written.followUp);
    },
    async arm(id) {
      if (closed) return refuse('closed', 'the follow-ups were closed');
      const read = await load(id);
      if (!('found' in read) || read.found === undefined)
        return 'found' in read ? refuse('not_found', `no follow-up ${id} is stored`) : read;
      const { found } = read;
      const followUp = typed(found.value);
      if (followUp.sentAt !== null) return refuse('already_sent', `${id} was sent before`);
      if (followUp.sendingAt === null) return arm(followUp);
      const given = await giveBack(id, found);
      if (given !== undefined) return given;
      if (found.lease !== null && clock.now() < found.lease.expiresAt) {
        return refuse('in_flight', `${id} is being sent by ${found.lease.owner}`);
      }
      events.emit('outcome-unknown', { id, sendingAt: followUp.sendingAt, at: clock.now() });
      return refuse('outcome_unknown', reasonFor(id, 'outcome_unknown', followUp));
    },
    async resolve(id, outcome) {
      if (closed) return refuse('closed', 'the follow-ups were closed');
      const read = await load(id);
      return 'found' in read ? write(id, resolveStep, outcome) : read;
    },
    async get(id) {
      const read = await load(id);
      return 'found' in read && read.found !== undefined ? typed(read.found.value) : undefined;
    },
    keyOf,
    get armed() {
      return timers.size;
    },
    async settled() {
      while (running.size > 0) await Promise.all(running);
    },
    on: (event, listener) => events.on(event, listener),
    close() {
      closed = true;
      for (const timer of timers.values()) clock.clearTimeout(timer);
      timers.clear();
    },
  };
}

function positive(value: number, option: string): number {
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new ChatFlowError('invalid_argument', `${option} must be a positive integer, not ${value}`, {
    details: { option },
  });
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The most failed sends whose claim could not be given back that one process remembers. */
const MAX_KNOWN_UNSENT = 1_000;
