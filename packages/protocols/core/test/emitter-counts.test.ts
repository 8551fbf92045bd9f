import { describe, expect, it } from 'vitest';
import { createEmitter, type Unsubscribe } from '../src/index.js';

// listenerCount is asked on hot paths (the memory store on every write, the tool gate on every call,
// which trusts it instead of counting its own listeners); these pin that the counts stay exact
// however listeners come and go.
interface Events {
  settled: { id: string };
  refused: { code: string };
}

describe('createEmitter listenerCount', () => {
  it('counts on and once listeners per event, and a once listener leaves when it fires', () => {
    const events = createEmitter<Events>();
    events.on('settled', () => {});
    events.on('settled', () => {});
    events.once('settled', () => {});
    events.once('refused', () => {});
    expect(events.listenerCount('settled')).toBe(3);
    expect(events.listenerCount('refused')).toBe(1);
    events.emit('settled', { id: 'a' });
    expect(events.listenerCount('settled')).toBe(2);
    events.emit('settled', { id: 'b' });
    expect(events.listenerCount('settled')).toBe(2);
    expect(events.listenerCount('refused')).toBe(1);
  });

  it('counts each unsubscribe once, also after a once listener fired', () => {
    const events = createEmitter<Events>();
    const offOn = events.on('settled', () => {});
    const offOnce = events.once('settled', () => {});
    events.on('settled', () => {});
    offOn();
    offOn();
    expect(events.listenerCount('settled')).toBe(2);
    events.emit('settled', { id: 'a' });
    expect(events.listenerCount('settled')).toBe(1);
    offOnce(); // it already fired
    expect(events.listenerCount('settled')).toBe(1);
  });

  it('excludes a once listener while it runs, and a listener that removes itself', () => {
    const events = createEmitter<Events>();
    const seen: number[] = [];
    events.once('settled', () => seen.push(events.listenerCount('settled')));
    let off: Unsubscribe = () => {};
    off = events.on('settled', () => {
      off();
      seen.push(events.listenerCount('settled'));
    });
    events.on('settled', () => {});
    events.emit('settled', { id: 'a' });
    expect(seen).toEqual([2, 1]);
    off();
    expect(events.listenerCount('settled')).toBe(1);
  });

  it('stays exact when a listener removes another during emit, an on or a once listener', () => {
    const events = createEmitter<Events>();
    const offs: Unsubscribe[] = [];
    events.on('settled', () => {
      for (const off of offs) off();
    });
    offs.push(events.on('settled', () => {}));
    offs.push(events.once('settled', () => {}));
    events.on('settled', () => {});
    events.emit('settled', { id: 'a' });
    expect(events.listenerCount('settled')).toBe(2);
    events.emit('settled', { id: 'b' });
    expect(events.listenerCount('settled')).toBe(2);
  });

  it('counts a listener added during emit', () => {
    const events = createEmitter<Events>();
    events.once('settled', () => {
      events.on('settled', () => {});
      events.once('settled', () => {});
    });
    events.emit('settled', { id: 'a' });
    expect(events.listenerCount('settled')).toBe(2);
  });

  it('does not let an unsubscribe from before removeAllListeners change a later count', () => {
    const events = createEmitter<Events>();
    const offSettled = events.on('settled', () => {});
    const offOnce = events.once('settled', () => {});
    const offRefused = events.on('refused', () => {});
    events.removeAllListeners('settled');
    events.on('settled', () => {});
    offSettled();
    offOnce();
    expect(events.listenerCount('settled')).toBe(1);
    expect(events.listenerCount('refused')).toBe(1);
    events.removeAllListeners();
    events.on('refused', () => {});
    offRefused();
    expect(events.listenerCount('refused')).toBe(1);
    expect(events.listenerCount('settled')).toBe(0);
  });

  it('stays exact when removeAllListeners runs during emit and a once listener fires after it', () => {
    const events = createEmitter<Events>();
    events.on('settled', () => {
      events.removeAllListeners();
      events.on('settled', () => {});
    });
    const offOnce = events.once('settled', () => {});
    events.emit('settled', { id: 'a' }); // the once listener was in the emit's list
    offOnce();
    expect(events.listenerCount('settled')).toBe(1);
  });

  it('counts a listener that throws like any other', () => {
    const events = createEmitter<Events>({ onListenerError: () => {} });
    events.once('settled', () => {
      throw new Error('listener bug');
    });
    events.on('settled', () => {
      throw new Error('listener bug');
    });
    events.emit('settled', { id: 'a' });
    expect(events.listenerCount('settled')).toBe(1);
  });
});
