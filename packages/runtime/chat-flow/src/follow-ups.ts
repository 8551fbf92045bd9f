import { createEmitter, createKernel, createOwnerId, type JsonValue, systemClock } from '@parley/core';
import { ChatFlowError } from './errors.js';
import { reasonFor, resolveStep, scheduleStep } from './follow-up-record.js';
import { arm, type FollowUpsState, giveBack, load, refuse, write } from './follow-up-run.js';
import {
  DEFAULT_MAX_ARMED_FOLLOW_UPS,
  DEFAULT_SEND_LEASE_MS,
  type FollowUp,
  type FollowUps,
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
  const clock = options.clock ?? systemClock;
  const state: FollowUpsState<TPayload> = {
    kernel: createKernel({ store, clock, owner: createOwnerId('follow-ups') }),
    clock,
    prefix: options.keyPrefix ?? 'follow-up:',
    send,
    maxArmed: positive(options.maxArmed ?? DEFAULT_MAX_ARMED_FOLLOW_UPS, 'maxArmed'),
    sendLeaseMs: positive(options.sendLeaseMs ?? DEFAULT_SEND_LEASE_MS, 'sendLeaseMs'),
    events: createEmitter(),
    timers: new Map(),
    running: new Set(),
    unsent: new Map(),
    closed: false,
  };
  const { events, timers, running, prefix } = state;
  const typed = (followUp: FollowUp): FollowUp<TPayload> => followUp as FollowUp<TPayload>; // payloads are the host's JSON

  return {
    async schedule(id, dueAt, payload) {
      if (state.closed) return refuse('closed', 'the follow-ups were closed');
      const fresh = { kind: 'parley.follow-up', id, dueAt, payload, createdAt: clock.now() } as const;
      const written = await write(state, id, scheduleStep, { ...fresh, sendingAt: null, sentAt: null });
      if (!written.ok) return written;
      events.emit('scheduled', { id, dueAt });
      return arm(state, written.followUp);
    },
    async arm(id) {
      if (state.closed) return refuse('closed', 'the follow-ups were closed');
      const read = await load(state, id);
      if (!('found' in read) || read.found === undefined)
        return 'found' in read ? refuse('not_found', `no follow-up ${id} is stored`) : read;
      const { found } = read;
      const followUp = typed(found.value);
      if (followUp.sentAt !== null) return refuse('already_sent', `${id} was sent before`);
      if (followUp.sendingAt === null) return arm(state, followUp);
      const given = await giveBack(state, id, found);
      if (given !== undefined) return given;
      if (found.lease !== null && clock.now() < found.lease.expiresAt) {
        return refuse('in_flight', `${id} is being sent by ${found.lease.owner}`);
      }
      events.emit('outcome-unknown', { id, sendingAt: followUp.sendingAt, at: clock.now() });
      return refuse('outcome_unknown', reasonFor(id, 'outcome_unknown', followUp));
    },
    async resolve(id, outcome) {
      if (state.closed) return refuse('closed', 'the follow-ups were closed');
      const read = await load(state, id);
      return 'found' in read ? write(state, id, resolveStep, outcome) : read;
    },
    async get(id) {
      const read = await load(state, id);
      return 'found' in read && read.found !== undefined ? typed(read.found.value) : undefined;
    },
    keyOf: (id) => `${prefix}${id}`,
    get armed() {
      return timers.size;
    },
    async settled() {
      while (running.size > 0) await Promise.all(running);
    },
    on: (event, listener) => events.on(event, listener),
    close() {
      state.closed = true;
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
