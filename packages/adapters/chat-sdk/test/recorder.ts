// The bus side of a test bot: the adapter over the Chat SDK bot, a bus on the test's clock, and a
// recorder that sees every inbound message first and passes it on.
import { createMessageBus, type InboundMessage, type MessageBus } from '@parley/bus';
import type { ManualClock } from '@parley/core';
import { createProgress } from '@parley/testing';
import { type ChatSdkAdapter, type ChatSdkBot, createChatSdkAdapter } from '../src/index.js';

export interface Recorded {
  readonly adapter: ChatSdkAdapter;
  readonly bus: MessageBus;
  /** What the bus received, in order. */
  readonly inbound: InboundMessage[];
  /** Resolves once the bus has received `count` messages; rejects naming them when none come. */
  received(count: number): Promise<void>;
}

export async function attachRecorded(bot: ChatSdkBot, clock: ManualClock): Promise<Recorded> {
  const adapter = createChatSdkAdapter({ bot });
  const bus = createMessageBus({ clock });
  await bus.attach(adapter);
  const inbound: InboundMessage[] = [];
  const progress = createProgress();
  bus.intercept({
    name: 'recorder',
    intercept: (message) => {
      inbound.push(message);
      progress.poke();
      return false;
    },
  });
  return {
    adapter,
    bus,
    inbound,
    received: (count) =>
      progress.waitFor(() => inbound.length >= count, `${count} inbound message(s) on the bus`),
  };
}

/** A logger of the Chat SDK adapters that says nothing. */
export const silent = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silent,
};
