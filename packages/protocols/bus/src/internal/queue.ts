import { BusError } from '../errors.js';

/**
 * A bounded FIFO with waiting consumers: `offer` hands an item straight to the oldest waiter, or
 * stores it; `take` returns a stored item or waits for one. Used for both directions of the bus.
 */
export class WaitQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private readonly waiters: Waiter<T>[] = [];
  private readonly bySignal = new WeakMap<AbortSignal, { members: Set<Waiter<T>>; onAbort: () => void }>();
  closed = false;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length - this.head;
  }

  /** Delivers or stores `item`; returns false when full (the caller applies the overflow policy). */
  offer(item: T): boolean {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      waiter.cleanup();
      waiter.resolve(item);
      return true;
    }
    if (this.size >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  /** Removes and returns the oldest stored item. */
  poll(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head++;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  take(signal: AbortSignal | undefined): Promise<T> {
    if (this.size > 0) return Promise.resolve(this.poll() as T);
    if (this.closed) return Promise.reject(new BusError('closed', 'The bus is closed'));
    if (signal?.aborted) return Promise.reject(cancelled(signal));
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = { resolve, reject, cleanup: () => {} };
      if (signal !== undefined) waiter.cleanup = this.watch(signal, waiter);
      this.waiters.push(waiter);
    });
  }

  /**
   * Cancels `waiter` when `signal` aborts. Every waiter on one signal shares one `abort` listener,
   * removed with the last of them: a signal reused by many receives never piles up listeners.
   */
  private watch(signal: AbortSignal, waiter: Waiter<T>): () => void {
    let group = this.bySignal.get(signal);
    if (group === undefined) {
      const members = new Set<Waiter<T>>();
      const onAbort = (): void => {
        this.bySignal.delete(signal);
        signal.removeEventListener('abort', onAbort); // already gone ({ once }): a no-op, said for symmetry
        for (const member of members) {
          const index = this.waiters.indexOf(member);
          if (index >= 0) this.waiters.splice(index, 1);
          member.reject(cancelled(signal));
        }
        members.clear();
      };
      group = { members, onAbort };
      this.bySignal.set(signal, group);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    const own = group;
    own.members.add(waiter);
    return () => {
      if (!own.members.delete(waiter) || own.members.size > 0) return;
      this.bySignal.delete(signal);
      signal.removeEventListener('abort', own.onAbort);
    };
  }

  /** Wakes every waiter with `closed`; stored items can still be drained. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) {
      waiter.cleanup();
      waiter.reject(new BusError('closed', 'The bus is closed'));
    }
  }
}

interface Waiter<T> {
  resolve(item: T): void;
  reject(error: unknown): void;
  cleanup(): void;
}

function cancelled(signal: AbortSignal): BusError {
  return new BusError('cancelled', 'The receive was aborted', { cause: signal.reason });
}
