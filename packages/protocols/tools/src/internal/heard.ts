import type { Emitter, Unsubscribe } from '@parley/core';
import type { ToolGateEvents } from '../types.js';

// Which events of a gate someone listens to, counted as listeners come and go: the batch asks at
// every call, and asking the emitter builds its key text each time.

/** A gate's `on`, and whether an event has a listener now. */
export interface HeardEvents {
  readonly on: Emitter<ToolGateEvents>['on'];
  hears(event: keyof ToolGateEvents & string): boolean;
}

/** Counts the listeners `events.on` adds; each unsubscribe counts once, however often it is called. */
export function countListeners(events: Emitter<ToolGateEvents>): HeardEvents {
  const listening = new Map<string, number>();
  return {
    on(event, listener): Unsubscribe {
      const off = events.on(event, listener);
      listening.set(event, (listening.get(event) ?? 0) + 1);
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        listening.set(event, (listening.get(event) as number) - 1); // counted when it subscribed
        off();
      };
    },
    hears: (event) => (listening.get(event) ?? 0) > 0,
  };
}
