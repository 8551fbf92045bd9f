import { createMessageBus, type MessageBus } from '@parley/bus';
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

// Shared with the other packages' tests.
export { delegating } from '../../../../tests/support/stores.js';
