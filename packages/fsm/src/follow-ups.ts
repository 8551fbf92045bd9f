import {
  type Clock,
  createEmitter,
  type JsonValue,
  type StoreEntry,
  systemClock,
  type TimerHandle,
} from '@parley/core';
import { FsmError } from './errors.js';
import {
  DEFAULT_MAX_ARMED_FOLLOW_UPS,
  type FollowUp,
  type FollowUpRefusalCode,
  type FollowUpResult,
  type FollowUps,
  type FollowUpsEvents,
  type FollowUpsOptions,
} from './follow-up-types.js';
import { isRecord } from './snapshot.js';

/**
 * Creates durable one-shot follow-ups in a Store: a host schedules one ("remind me in 7 days") with
 * an absolute due time, it fires on the injected clock and is delivered by `send` at most once.
 * When it fires, the record is read again and *claimed* first (`sendingAt` written with
 * compare-and-set; of two processes that armed it, only the winner sends), then sent, then marked
 * `sentAt`. A restarted process calls `arm(id)`: armed again, or sent at once when it fell due while
 * nobody ran. A claim without `sentAt` means a send whose outcome is unknown (a crash between the
 * claim and the mark): `arm` refuses it `outcome_unknown` with an `outcome-unknown` event and never
 * resends it by itself; the host checks and calls `resolve(id, 'sent' | 'unsent')`. A `send` that
 * throws releases the claim (event `failed`) for the next `arm`. Use it for anything a flow promises
 * to do later, after its session has closed. `schedule`, `arm`, `resolve` and `get` reject with the
 * store's own error when the store throws.
 *
 * @throws FsmError `invalid_options` when `maxArmed` is not a positive integer.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { createFollowUps } from '@parley/fsm';
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
  const maxArmed = options.maxArmed ?? DEFAULT_MAX_ARMED_FOLLOW_UPS;
  if (!Number.isSafeInteger(maxArmed) || maxArmed < 1) {
    throw new FsmError('invalid_options', `maxArmed must be a positive integer, not ${maxArmed}`, {
      details: { option: 'maxArmed' },
    });
  }
  const events = createEmitter<FollowUpsEvents>();
  const timers = new Map<string, TimerHandle>();
  const running = new Set<Promise<void>>();
  /** Claims this process holds after a send that failed for certain but could not be given back. */
  const unsent = new Map<string, number>();
  let closed = false;
  const keyOf = (id: string): string => `${prefix}${id}`;
  const refuse = (code: FollowUpRefusalCode, reason: string): FollowUpResult<TPayload> => ({
    ok: false,
    code,
    reason,
  });

  function read(id: string, entry: StoreEntry | undefined): FollowUp<TPayload> | undefined {
    const value = entry?.value;
    const ok =
      isRecord(value) &&
      value.kind === 'parley.follow-up' &&
      value.id === id &&
      Number.isFinite(value.dueAt) &&
      Number.isFinite(value.createdAt) &&
      (value.sentAt === null || Number.isFinite(value.sentAt)) &&
      (value.sendingAt === undefined || value.sendingAt === null || Number.isFinite(value.sendingAt)) &&
      'payload' in value;
    // every field checked just above; a record written before claims existed has no `sendingAt`
    return ok ? ({ sendingAt: null, ...value } as unknown as FollowUp<TPayload>) : undefined;
  }

  /** Writes `next` over the version read; `undefined` when another writer came first. */
  async function swap(entry: StoreEntry, next: FollowUp<TPayload>): Promise<number | undefined> {
    const written = await store.compareAndSet(keyOf(next.id), entry.version, next as unknown as JsonValue); // plain JSON
    return written.ok ? written.version : undefined;
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
    try {
      const entry = await store.getEntry(keyOf(id));
      const followUp = read(id, entry);
      if (entry === undefined || followUp === undefined || followUp.sentAt !== null) return;
      if (followUp.sendingAt !== null) {
        events.emit('skipped', { id, reason: 'claimed', at: clock.now() });
        return;
      }
      const claimed: FollowUp<TPayload> = { ...followUp, sendingAt: clock.now() };
      const version = await swap(entry, claimed);
      if (version === undefined) {
        events.emit('skipped', { id, reason: 'claimed', at: clock.now() });
        return;
      }
      try {
        await send(claimed);
      } catch (error) {
        // the send failed for certain: release the claim so the next `arm` sends it
        await store
          .compareAndSet(keyOf(id), version, followUp as unknown as JsonValue)
          .catch((lost: unknown) => {
            // This process knows; `arm` here gives it back (another process cannot know). At most
            // MAX_KNOWN_UNSENT are kept: a forgotten one reads as an unknown outcome, the safe way.
            if (unsent.size >= MAX_KNOWN_UNSENT) unsent.delete(unsent.keys().next().value as string);
            unsent.set(id, version);
            throw new Error(`${reasonOf(error)} (and the claim could not be given back: ${reasonOf(lost)})`);
          });
        throw error;
      }
      const sentAt = clock.now();
      const marked = await store.compareAndSet(keyOf(id), version, { ...claimed, sentAt });
      if (!marked.ok) throw new Error(`the record of ${id} changed while it was sent`);
      events.emit('sent', { id, dueAt: followUp.dueAt, sentAt });
    } catch (error) {
      events.emit('failed', { id, reason: reasonOf(error), at: clock.now() });
    }
  }

  return {
    async schedule(id, dueAt, payload) {
      if (closed) return refuse('closed', 'the follow-ups were closed');
      const followUp: FollowUp<TPayload> = {
        kind: 'parley.follow-up',
        id,
        dueAt,
        payload,
        createdAt: clock.now(),
        sendingAt: null,
        sentAt: null,
      };
      const written = await store.compareAndSet(keyOf(id), null, followUp as unknown as JsonValue); // plain JSON
      if (!written.ok) return refuse('exists', `a follow-up ${id} is stored already`);
      events.emit('scheduled', { id, dueAt });
      return arm(followUp);
    },
    async arm(id) {
      if (closed) return refuse('closed', 'the follow-ups were closed');
      const entry = await store.getEntry(keyOf(id));
      if (entry === undefined) return refuse('not_found', `no follow-up ${id} is stored`);
      const followUp = read(id, entry);
      if (followUp === undefined) return refuse('corrupt_record', `the record of ${id} is not a follow-up`);
      if (followUp.sentAt !== null) return refuse('already_sent', `${id} was sent before`);
      if (followUp.sendingAt !== null && unsent.get(id) === entry.version) {
        // its send failed here for certain: give the claim back now, then arm it as unsent
        const released: FollowUp<TPayload> = { ...followUp, sendingAt: null };
        if ((await swap(entry, released)) === undefined)
          return refuse('conflict', `the record of ${id} changed`);
        unsent.delete(id);
        return arm(released);
      }
      if (followUp.sendingAt !== null) {
        events.emit('outcome-unknown', { id, sendingAt: followUp.sendingAt, at: clock.now() });
        const when = new Date(followUp.sendingAt).toISOString();
        return refuse('outcome_unknown', `${id} was claimed for sending at ${when} and never marked sent`);
      }
      return arm(followUp);
    },
    async resolve(id, outcome) {
      if (closed) return refuse('closed', 'the follow-ups were closed');
      const entry = await store.getEntry(keyOf(id));
      const followUp = read(id, entry);
      if (entry === undefined || followUp === undefined)
        return refuse('not_found', `no follow-up ${id} is stored`);
      if (followUp.sentAt !== null) return refuse('already_sent', `${id} was sent before`);
      if (followUp.sendingAt === null) return refuse('not_claimed', `${id} was never claimed for sending`);
      const next: FollowUp<TPayload> =
        outcome === 'sent' ? { ...followUp, sentAt: clock.now() } : { ...followUp, sendingAt: null };
      if ((await swap(entry, next)) === undefined) return refuse('conflict', `the record of ${id} changed`);
      return { ok: true, followUp: next };
    },
    async get(id) {
      return read(id, await store.getEntry(keyOf(id)));
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

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The most failed sends whose claim could not be given back that one process remembers. */
const MAX_KNOWN_UNSENT = 1_000;
