import { describe, expect, it, vi } from 'vitest';
import { createDeadlineQueue, createManualClock } from '../src/index.js';

describe('createDeadlineQueue', () => {
  it('keeps a single clock timer however many deadlines wait', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    for (let i = 0; i < 100; i++) queue.add(1_000 + i, () => {});
    expect(queue.size).toBe(100);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.nextTimerAt()).toBe(1_000);
  });

  it('runs callbacks at their absolute times, in order', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const seen: string[] = [];
    queue.add(300, () => seen.push(`c@${clock.now()}`));
    queue.add(100, () => seen.push(`a@${clock.now()}`));
    queue.add(200, () => seen.push(`b@${clock.now()}`));
    clock.advance(150);
    expect(seen).toEqual(['a@100']);
    clock.advance(1_000);
    expect(seen).toEqual(['a@100', 'b@200', 'c@300']);
    expect(queue.size).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs a deadline already in the past on the next tick', () => {
    const clock = createManualClock({ now: 5_000 });
    const queue = createDeadlineQueue({ clock });
    const callback = vi.fn();
    queue.add(1_000, callback);
    expect(callback).not.toHaveBeenCalled();
    clock.advance(0);
    expect(callback).toHaveBeenCalledOnce();
  });

  it('moves the timer earlier when an earlier deadline arrives', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    queue.add(500, () => {});
    queue.add(100, () => {});
    expect(clock.nextTimerAt()).toBe(100);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('never runs a removed deadline and leaves no pending timer when the queue empties', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const callback = vi.fn();
    const handle = queue.add(100, callback);
    expect(queue.remove(handle)).toBe(true);
    expect(queue.remove(handle)).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(200);
    expect(callback).not.toHaveBeenCalled();
  });

  it('parks its timer as background work when the last deadline goes, and reuses it', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const callback = vi.fn();
    queue.remove(queue.add(100, () => {}));
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([0, 1]);
    queue.add(250, callback);
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([1, 0]);
    expect(clock.nextTimerAt()).toBe(100); // the parked timer, not a new one
    clock.advance(100);
    expect(callback).not.toHaveBeenCalled();
    expect(clock.nextTimerAt()).toBe(250);
    clock.advance(150);
    expect(callback).toHaveBeenCalledOnce();
  });

  it('leaves nothing behind when a parked timer fires', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    queue.remove(queue.add(100, () => {}));
    clock.advance(100);
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([0, 0]);
    expect(clock.nextTimerAt()).toBeUndefined();
  });

  it('replaces a parked timer when an earlier deadline arrives', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    queue.remove(queue.add(500, () => {}));
    queue.add(100, () => {});
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([1, 0]);
    expect(clock.nextTimerAt()).toBe(100);
  });

  it('clears the timer of an empty queue on a clock that cannot park it', () => {
    const manual = createManualClock();
    const clock = {
      now: manual.now,
      setTimeout: manual.setTimeout,
      clearTimeout: manual.clearTimeout,
    };
    const queue = createDeadlineQueue({ clock });
    queue.remove(queue.add(100, () => {}));
    expect([manual.pendingTimers(), manual.backgroundTimers()]).toEqual([0, 0]);
    queue.add(200, () => {});
    expect(manual.nextTimerAt()).toBe(200);
  });

  it("keeps a background queue's parked timer in the background", () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock, background: true });
    queue.remove(queue.add(100, () => {}));
    queue.add(200, () => {});
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([0, 1]);
  });

  it('clear removes a parked timer too', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    queue.remove(queue.add(100, () => {}));
    queue.clear();
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([0, 0]);
  });

  it('keeps serving the remaining deadlines after the earliest is removed', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const later = vi.fn();
    const first = queue.add(100, () => {});
    queue.add(200, later);
    queue.remove(first);
    clock.advance(150);
    expect(later).not.toHaveBeenCalled();
    clock.advance(50);
    expect(later).toHaveBeenCalledOnce();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('reports a handle that already ran as not removable', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const handle = queue.add(10, () => {});
    clock.advance(10);
    expect(queue.remove(handle)).toBe(false);
  });

  it('runs deadlines added by a callback, including ones already due', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const seen: number[] = [];
    queue.add(100, () => {
      queue.add(50, () => seen.push(clock.now()));
      queue.add(300, () => seen.push(clock.now()));
    });
    clock.advance(100);
    expect(seen).toEqual([100]);
    clock.advance(200);
    expect(seen).toEqual([100, 300]);
  });

  it('serves an earlier waiting deadline when a callback adds a later one', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const seen: number[] = [];
    queue.add(100, () => queue.add(1_000, () => seen.push(clock.now())));
    queue.add(150, () => seen.push(clock.now()));
    clock.advance(100);
    expect(clock.nextTimerAt()).toBe(150);
    clock.advance(900);
    expect(seen).toEqual([150, 1_000]);
  });

  it('runs every due callback even when one throws, then rethrows the first error', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const after = vi.fn();
    queue.add(10, () => {
      throw new Error('first');
    });
    queue.add(10, () => {
      throw new Error('second');
    });
    queue.add(10, after);
    queue.add(99, () => {});
    expect(() => clock.advance(10)).toThrow('first');
    expect(after).toHaveBeenCalledOnce();
    expect(clock.pendingTimers()).toBe(1);
  });

  it('passes each entry its own value, so one shared callback serves every entry', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const seen: string[] = [];
    const expire = (id: string): void => {
      seen.push(id);
    };
    queue.add(20, expire, 'req_2');
    queue.add(10, expire, 'req_1');
    clock.advance(20);
    expect(seen).toEqual(['req_1', 'req_2']);
  });

  it('asks the clock for background timers when created as background', () => {
    const clock = createManualClock();
    const seen: unknown[] = [];
    const spying = {
      ...clock,
      setTimeout: (cb: () => void, ms: number, o?: unknown) => {
        seen.push(o);
        return clock.setTimeout(cb, ms);
      },
    };
    createDeadlineQueue({ clock: spying, background: true }).add(10, () => {});
    createDeadlineQueue({ clock: spying }).add(10, () => {});
    expect(seen).toEqual([{ background: true }, undefined]);
  });

  it('clear drops everything without running it', () => {
    const clock = createManualClock();
    const queue = createDeadlineQueue({ clock });
    const callback = vi.fn();
    queue.add(10, callback);
    queue.add(20, callback);
    queue.clear();
    expect(queue.size).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(100);
    expect(callback).not.toHaveBeenCalled();
  });
});

describe('createDeadlineQueue: deadlines that are not numbers (issue 19 hunt)', () => {
  it('[STORE-9] runs a NaN deadline at once and never lets it hold back the deadlines behind it', () => {
    const clock = createManualClock({ now: 1_000 });
    const queue = createDeadlineQueue({ clock });
    const ran: string[] = [];
    const bad = queue.add(Number.NaN, () => ran.push('nan'));
    queue.add(1_100, () => ran.push('later'));
    expect(bad.at).toBe(1_000);
    clock.advance(0);
    expect(ran).toEqual(['nan']);
    clock.advance(100);
    expect(ran).toEqual(['nan', 'later']);
    expect(queue.size).toBe(0);
  });
});
