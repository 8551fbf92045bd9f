// The getUpdates side of the stand-in (https://core.telegram.org/bots/api#getupdates): a queue of
// updates that Telegram keeps until an `offset` above an update's id confirms it, one long poll
// held at a time and answered when an update arrives or its `timeout` passes on the clock, and
// the deliveries waiting for their confirmation.
import type { Clock, TimerHandle } from '@parley/core';
import type { TelegramStandInUpdate } from '../standin-update-types.js';

/** Telegram's cap on `limit`, and its default. */
const MAX_LIMIT = 100;

interface Entry {
  readonly update: TelegramStandInUpdate;
  /** Whether a getUpdates answer carried it (only then can an offset confirm it). */
  sent: boolean;
  readonly confirmed: () => void;
}

interface Poll {
  readonly offset: number;
  readonly limit: number;
  readonly timer: TimerHandle;
  readonly respond: (updates: readonly TelegramStandInUpdate[]) => void;
}

export interface GetUpdatesParams {
  readonly offset: number;
  readonly limit: number;
  readonly timeoutSeconds: number;
}

export interface StandInPolling {
  /** Queues an update; `confirmed` runs once a later offset confirms it. */
  enqueue(update: TelegramStandInUpdate, confirmed: () => void): void;
  /** Answers getUpdates now (updates ready, or no timeout) or once an update arrives or it times out. */
  getUpdates(
    params: GetUpdatesParams,
    onAbort: (listener: () => void) => void,
  ): Promise<readonly TelegramStandInUpdate[]>;
  /** Forgets every queued update (`deleteWebhook` with `drop_pending_updates`). */
  drop(): void;
  /** How many updates wait for their confirmation. */
  pendingCount(): number;
  /** Answers the held poll with nothing and clears its timer. */
  release(): void;
}

export function createStandInPolling(clock: Clock): StandInPolling {
  let queue: Entry[] = [];
  let poll: Poll | undefined;

  /** Confirms what the offset passes (only updates already sent), then takes the next batch. */
  function ready(offset: number, limit: number): TelegramStandInUpdate[] {
    const kept: Entry[] = [];
    for (const entry of queue) {
      if (entry.sent && entry.update.update_id < offset) entry.confirmed();
      else kept.push(entry);
    }
    queue = kept;
    const batch = queue.slice(0, limit);
    for (const entry of batch) entry.sent = true;
    return batch.map((entry) => entry.update);
  }

  function answer(updates: readonly TelegramStandInUpdate[]): void {
    const held = poll;
    if (held === undefined) return;
    poll = undefined;
    clock.clearTimeout(held.timer);
    held.respond(updates);
  }

  return {
    enqueue(update, confirmed) {
      queue.push({ update, sent: false, confirmed });
      if (poll !== undefined) answer(ready(poll.offset, poll.limit));
    },
    getUpdates(params, onAbort) {
      answer([]); // a new poll ends the one held (Telegram answers the older request)
      const updates = ready(params.offset, params.limit);
      if (updates.length > 0 || params.timeoutSeconds <= 0) return Promise.resolve(updates);
      return new Promise((resolve) => {
        const timer = clock.setTimeout(() => answer([]), params.timeoutSeconds * 1000);
        const held: Poll = { offset: params.offset, limit: params.limit, timer, respond: resolve };
        poll = held;
        onAbort(() => {
          if (poll !== held) return;
          poll = undefined; // the bot aborted its long poll (grammY's bot.stop())
          clock.clearTimeout(timer);
        });
      });
    },
    drop() {
      queue = [];
    },
    pendingCount: () => queue.length,
    release: () => answer([]),
  };
}

/** getUpdates' parameters, Telegram's defaults for those missing or malformed. */
export function getUpdatesParams(params: Readonly<Record<string, unknown>>): GetUpdatesParams {
  const number = (value: unknown, fallback: number): number =>
    typeof value === 'number' && Number.isFinite(value) ? value : fallback;
  const limit = Math.min(Math.max(number(params['limit'], MAX_LIMIT), 1), MAX_LIMIT);
  return { offset: number(params['offset'], 0), limit, timeoutSeconds: number(params['timeout'], 0) };
}
