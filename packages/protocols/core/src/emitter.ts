import { EventEmitter } from 'eventemitter3';

/**
 * The shape of an event map: event name → the one payload object it carries.
 *
 * @example
 * ```ts
 * import type { EventMap } from '@parley/core';
 *
 * interface DoorEvents extends EventMap<DoorEvents> {
 *   opened: { by: string };
 * }
 * ```
 */
export type EventMap<T> = { [K in keyof T]: object };

/**
 * Removes the listener it was returned for. Calling it twice does nothing.
 *
 * @example
 * ```ts
 * import { createEmitter, type Unsubscribe } from '@parley/core';
 *
 * const events = createEmitter<{ ping: { n: number } }>();
 * const off: Unsubscribe = events.on('ping', () => {});
 * off();
 * ```
 */
export type Unsubscribe = () => void;

/**
 * A typed emitter: each event name has one payload type, checked at compile time.
 *
 * @example
 * ```ts
 * import { createEmitter, type Emitter } from '@parley/core';
 *
 * const events: Emitter<{ settled: { id: string } }> = createEmitter();
 * events.on('settled', ({ id }) => console.log(id));
 * events.emit('settled', { id: 'req_1' }); // prints req_1
 * ```
 */
export interface Emitter<TEvents extends EventMap<TEvents>> {
  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof TEvents & string>(event: K, listener: (payload: TEvents[K]) => void): Unsubscribe;
  /** Adds a listener that runs at most once; returns a function that removes it. */
  once<K extends keyof TEvents & string>(event: K, listener: (payload: TEvents[K]) => void): Unsubscribe;
  /** Calls every listener of `event` with `payload`; returns whether any listened. */
  emit<K extends keyof TEvents & string>(event: K, payload: TEvents[K]): boolean;
  /** How many listeners `event` has. */
  listenerCount(event: keyof TEvents & string): number;
  /** Removes every listener, of one event or of all. */
  removeAllListeners(event?: keyof TEvents & string): void;
}

/**
 * Options for {@link createEmitter}.
 *
 * @example
 * ```ts
 * import type { EmitterOptions } from '@parley/core';
 *
 * const options: EmitterOptions = { onListenerError: (error, event) => console.error(event, error) };
 * ```
 */
export interface EmitterOptions {
  /**
   * Called when a listener throws. By default the error is rethrown in a microtask, so it is
   * loud but never interrupts the component that emitted (its state is already committed).
   */
  readonly onListenerError?: (error: unknown, event: string) => void;
}

/**
 * Creates a typed emitter over eventemitter3.
 *
 * Every Parley component that reports events uses one. A listener that throws never breaks the
 * emitting component or the other listeners: the error goes to `onListenerError`.
 *
 * @example
 * ```ts
 * import { createEmitter } from '@parley/core';
 *
 * interface LampEvents {
 *   switched: { on: boolean };
 * }
 * const events = createEmitter<LampEvents>();
 * const off = events.on('switched', ({ on }) => console.log(on ? 'on' : 'off'));
 * events.emit('switched', { on: true }); // prints "on"
 * off();
 * ```
 */
export function createEmitter<TEvents extends EventMap<TEvents>>(
  options: EmitterOptions = {},
): Emitter<TEvents> {
  const inner = new EventEmitter();
  const report = options.onListenerError ?? rethrowLater;

  function add(event: string, listener: (payload: never) => void, once: boolean): Unsubscribe {
    // Payload types are checked at the public signature; inside, the listener takes what emit was given.
    const call = listener as (payload: unknown) => void;
    const wrapped = (payload: unknown): void => {
      try {
        call(payload);
      } catch (error) {
        report(error, event);
      }
    };
    if (once) inner.once(event, wrapped);
    else inner.on(event, wrapped);
    return () => {
      inner.off(event, wrapped);
    };
  }

  return {
    on: (event, listener) => add(event, listener, false),
    once: (event, listener) => add(event, listener, true),
    emit: (event, payload) => inner.emit(event, payload),
    listenerCount: (event) => inner.listenerCount(event),
    removeAllListeners(event) {
      inner.removeAllListeners(event);
    },
  };
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
