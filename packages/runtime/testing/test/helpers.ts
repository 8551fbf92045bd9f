import { createMessageBus, type MessageBus } from '@parley/bus';
import type { Store } from '@parley/core';
import { createFakeChannel, type FakeChannel } from '../src/index.js';

/** A bus with a fake `feishu` channel attached. */
export async function attached(options: Parameters<typeof createFakeChannel>[0] = {}): Promise<{
  bus: MessageBus;
  channel: FakeChannel;
}> {
  const bus = createMessageBus();
  const channel = createFakeChannel({ channel: 'feishu', ...options });
  await bus.attach(channel);
  return { bus, channel };
}

/** The methods of `store` as plain functions over it, to override one or two (a spread alone loses their `this`). */
export function delegating(store: Store): Store {
  return {
    ...store,
    get: (key) => store.get(key),
    getEntry: (key) => store.getEntry(key),
    set: (key, value, options) => store.set(key, value, options),
    delete: (key) => store.delete(key),
    compareAndSet: (key, version, value, options) => store.compareAndSet(key, version, value, options),
    list: (prefix) => store.list(prefix),
    close: () => store.close(),
  };
}
