import { describe, expectTypeOf, it } from 'vitest';
import {
  type ChannelAdapter,
  createMessageBus,
  type InboundKind,
  type InboundMessage,
  type OutboundResult,
  type PublishResult,
} from '../src/index.js';

describe('bus types', () => {
  it('types publish results as closed unions', () => {
    const bus = createMessageBus();
    expectTypeOf(bus.publishInbound).returns.resolves.toEqualTypeOf<PublishResult>();
    expectTypeOf(bus.publishOutbound).returns.resolves.toEqualTypeOf<OutboundResult>();
    expectTypeOf<Extract<PublishResult, { status: 'rejected' }>['code']>().toEqualTypeOf<
      'queue_full' | 'closed' | 'invalid_message' | 'interceptor_failed'
    >();
  });

  it('gives consumers fully-filled inbound messages', () => {
    expectTypeOf<InboundMessage['sessionKey']>().toEqualTypeOf<string>();
    expectTypeOf<InboundMessage['kind']>().toEqualTypeOf<InboundKind>();
    expectTypeOf<InboundMessage['text']>().toEqualTypeOf<string>();
  });

  it('refuses adapters and inputs of the wrong shape', () => {
    // @ts-expect-error an adapter must send
    const adapter: ChannelAdapter = { channel: 'x' };
    const bus = createMessageBus();
    // @ts-expect-error senderId is required
    void bus.publishInbound({ channel: 'c', chatId: '1', text: 'x' });
    // @ts-expect-error kinds are a closed list
    void bus.publishInbound({ channel: 'c', chatId: '1', senderId: 'u', kind: 'poke' });
    void adapter;
  });
});
