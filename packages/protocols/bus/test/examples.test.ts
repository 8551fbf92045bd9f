// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// biome-ignore-all lint/correctness/noUnusedFunctionParameters: examples show signatures
// Every TSDoc @example of @parley/bus, compiled and run; a "// value" comment after console.log is asserted.
// Generated from the sources' TSDoc; keep in step with them.
import { describe, expect, it } from 'vitest';
import {
  BUS_ERROR_CODES,
  type BusErrorCode,
  type CardButton,
  type ChannelAdapter,
  comparePlatformOrder,
  isPlatformOrder,
  MAX_ORDER_POSITION_LENGTH,
  type OrderComparison,
  type PlatformOrder,
  createHygieneInterceptor,
  createMessageBus,
  DEFAULT_MAX_CONCURRENT_SESSIONS,
  DEFAULT_MAX_QUEUED_PER_SESSION,
  DEFAULT_QUEUE_CAPACITY,
  type DispatchBySessionOptions,
  dispatchBySession,
  type DeliverInbound,
  HYGIENE_DROP_REASONS,
  type HygieneDropReason,
  type HygieneInterceptor,
  type HygieneOptions,
  INBOUND_KINDS,
  MAX_REMEMBERED_ID_LENGTH,
  toRememberedId,
  type InboundInput,
  type InboundInterceptor,
  type InboundKind,
  type InboundMessage,
  type MessageBusOptions,
  type OutboundCard,
  type OutboundInput,
  type OutboundMessage,
  type OutboundResult,
  OVERFLOW_POLICIES,
  type OverflowPolicy,
  parseSessionKey,
  PUBLISH_REFUSAL_CODES,
  type PublishRefusalCode,
  type PublishResult,
  type ReceiveOptions,
  type SessionAddress,
  type SessionDispatcher,
  type SessionDispatchEvents,
  sessionKeyOf,
} from '../src/index.js';
import { createManualClock, isParleyError } from '@parley/core';
import { expectPrinted, log } from '../../../../tests/support/printed.js';

describe('@parley/bus examples', () => {
  it('DeliverInbound (adapter.ts)', async () => {
    async function onWebhook(deliver: DeliverInbound, body: { chat: string; user: string; text: string }) {
      await deliver({ chatId: body.chat, senderId: body.user, text: body.text });
    }
  });

  it('ChannelAdapter (adapter.ts)', async () => {
    const sent: string[] = [];
    let deliver: DeliverInbound | undefined;
    const adapter: ChannelAdapter = {
      channel: 'console',
      send: (message) => {
        sent.push(message.text);
      },
      connect: (d) => {
        deliver = d;
        return () => {
          deliver = undefined;
        };
      },
    };
    const bus = createMessageBus();
    const detach = await bus.attach(adapter);
    await deliver?.({ chatId: 'c1', senderId: 'u1', text: 'hello' });
    await bus.publishOutbound({ channel: 'console', chatId: 'c1', text: 'hi back' });
    log(sent);
    expectPrinted("[ 'hi back' ]");
    detach();
  });

  it('createMessageBus (bus.ts)', async () => {
    const bus = createMessageBus({ capacity: 100, overflow: 'drop-oldest' });
    bus.intercept({ name: 'ping', intercept: (message) => message.text === '/ping' });
    const result = await bus.publishInbound({ channel: 'tg', chatId: '42', senderId: '7', text: '/ping' });
    log(result.status);
    expectPrinted('intercepted');
    log(bus.size.inbound);
    expectPrinted('0');
  });

  it('DispatchBySessionOptions (dispatch.ts)', async () => {
    const options: DispatchBySessionOptions = { maxConcurrent: 4, maxQueuedPerSession: 8 };
    expect([DEFAULT_MAX_CONCURRENT_SESSIONS, DEFAULT_MAX_QUEUED_PER_SESSION]).toEqual([16, 32]);
  });

  it('SessionDispatchEvents (dispatch.ts)', async () => {
    const log = (event: SessionDispatchEvents['failed']): string =>
      `${event.message.sessionKey}: ${String(event.error)}`;
  });

  it('SessionDispatcher (dispatch.ts)', async () => {
    const bus = createMessageBus();
    const dispatcher: SessionDispatcher = dispatchBySession(bus, () => {});
    await bus.close();
    await dispatcher.done;
    log(dispatcher.running, dispatcher.queued);
    expectPrinted('0 0');
  });

  it('dispatchBySession (dispatch.ts)', async () => {
    const bus = createMessageBus();
    const replies: string[] = [];
    let answerA: () => void = () => {};
    const dispatcher = dispatchBySession(bus, async (message) => {
      if (message.chatId === 'a')
        await new Promise<void>((resolve) => {
          answerA = resolve;
        }); // e.g. a confirmation
      replies.push(`${message.chatId}: ${message.text}`);
    });
    await bus.publishInbound({ channel: 'demo', chatId: 'a', senderId: 'u1', text: '/purge' });
    await bus.publishInbound({ channel: 'demo', chatId: 'b', senderId: 'u2', text: 'hello' });
    await new Promise((resolve) => setImmediate(resolve));
    log(replies);
    expectPrinted("[ 'b: hello' ]");
    answerA();
    await bus.close();
    await dispatcher.done;
    log(replies);
    expectPrinted("[ 'b: hello', 'a: /purge' ]");
  });

  it('BUS_ERROR_CODES (errors.ts)', async () => {
    log(BUS_ERROR_CODES.includes('closed'));
    expectPrinted('true');
  });

  it('BusErrorCode (errors.ts)', async () => {
    const code: BusErrorCode = 'channel_taken';
  });

  it('BusError (errors.ts)', async () => {
    const bus = createMessageBus();
    await bus.close();
    try {
      await bus.receiveInbound();
    } catch (err) {
      log(isParleyError(err, 'closed'));
      expectPrinted('true');
    }
  });

  it('HYGIENE_DROP_REASONS (hygiene.ts)', async () => {
    log(HYGIENE_DROP_REASONS.includes('duplicate'));
    expectPrinted('true');
  });

  it('HygieneDropReason (hygiene.ts)', async () => {
    const reason: HygieneDropReason = 'from_self';
  });

  it('HygieneOptions (hygiene.ts)', async () => {
    const options: HygieneOptions = { dropBots: false, maxAgeMs: 10 * 60_000 };
  });

  it('createHygieneInterceptor (hygiene.ts)', async () => {
    const bus = createMessageBus();
    bus.intercept(createHygieneInterceptor());
    const input = { channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: 'hi', eventId: 'ev_1' };
    log((await bus.publishInbound(input)).status);
    expectPrinted('queued');
    log((await bus.publishInbound(input)).status);
    expectPrinted('intercepted');
  });

  it('HygieneInterceptor (hygiene.ts)', async () => {
    const hygiene: HygieneInterceptor = createHygieneInterceptor({ maxEventIds: 100 });
    log(hygiene.remembered);
    expectPrinted('{ ids: 0, chars: 0 }');
  });

  it('MAX_REMEMBERED_ID_LENGTH (remembered-id.ts)', async () => {
    log(MAX_REMEMBERED_ID_LENGTH);
    expectPrinted('64');
  });

  it('toRememberedId (remembered-id.ts)', async () => {
    log(toRememberedId('evt_1'));
    expectPrinted('evt_1');
    log(toRememberedId('x'.repeat(65_536)).length);
    expectPrinted('65');
  });

  it('INBOUND_KINDS (message.ts)', async () => {
    log(INBOUND_KINDS);
    expectPrinted("[ 'message', 'edit', 'recall', 'card_action' ]");
  });

  it('InboundKind (message.ts)', async () => {
    const kind: InboundKind = 'card_action';
  });

  it('InboundInput (message.ts)', async () => {
    const input: InboundInput = {
      channel: 'feishu',
      chatId: 'oc_123',
      senderId: 'ou_alice',
      text: '确认',
      eventId: 'evt_1',
      createdAt: 1_700_000_000_000,
    };
  });

  it('InboundMessage (message.ts)', async () => {
    const bus = createMessageBus();
    await bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: 'hi' });
    const message: InboundMessage = await bus.receiveInbound();
    log(message.sessionKey, message.kind);
    expectPrinted('feishu:oc_1 message');
  });

  it('CardButton (message.ts)', async () => {
    const button: CardButton = { label: '确认', value: { choice: 'confirm' }, style: 'danger' };
  });

  it('OutboundCard (message.ts)', async () => {
    const card: OutboundCard = { title: 'Confirm', body: 'DELETE FROM orders', buttons: [] };
  });

  it('OutboundInput (message.ts)', async () => {
    const reply: OutboundInput = { channel: 'feishu', chatId: 'oc_123', text: 'Done.' };
  });

  it('OutboundMessage (message.ts)', async () => {
    function render(message: OutboundMessage): string {
      return `[${message.sessionKey}] ${message.text}`;
    }
  });

  it('SessionAddress (session-key.ts)', async () => {
    const address: SessionAddress = { channel: 'feishu', chatId: 'oc_123', threadId: 'omt_9' };
  });

  it('sessionKeyOf (session-key.ts)', async () => {
    log(sessionKeyOf({ channel: 'feishu', chatId: 'oc_123' }));
    expectPrinted('feishu:oc_123');
    log(sessionKeyOf({ channel: 'slack', chatId: 'C1', threadId: '1700.1' }));
    expectPrinted('slack:C1:1700.1');
  });

  it('parseSessionKey (session-key.ts)', async () => {
    log(parseSessionKey('feishu:oc_123'));
    expectPrinted("{ channel: 'feishu', chatId: 'oc_123' }");
  });

  it('OVERFLOW_POLICIES (types.ts)', async () => {
    log(OVERFLOW_POLICIES);
    expectPrinted("[ 'reject', 'drop-oldest' ]");
  });

  it('OverflowPolicy (types.ts)', async () => {
    const policy: OverflowPolicy = 'drop-oldest';
  });

  it('DEFAULT_QUEUE_CAPACITY (types.ts)', async () => {
    log(DEFAULT_QUEUE_CAPACITY);
    expectPrinted('1000');
  });

  it('PUBLISH_REFUSAL_CODES (types.ts)', async () => {
    log(PUBLISH_REFUSAL_CODES.includes('queue_full'));
    expectPrinted('true');
  });

  it('PublishRefusalCode (types.ts)', async () => {
    const code: PublishRefusalCode = 'closed';
  });

  it('InboundInterceptor (types.ts)', async () => {
    const muteBots: InboundInterceptor = {
      name: 'mute-bots',
      intercept: (message) => message.senderIsBot === true,
    };
  });

  it('PublishResult (types.ts)', async () => {
    function describe(result: PublishResult): string {
      return result.status === 'rejected' ? result.code : result.status;
    }
  });

  it('OutboundResult (types.ts)', async () => {
    const failed: OutboundResult = { status: 'rejected', code: 'send_failed', error: new Error('429') };
  });

  it('BusEvents (types.ts)', async () => {
    const bus = createMessageBus({ capacity: 1 });
    bus.on('dropped', ({ direction, code }) => log(direction, code));
    await bus.publishInbound({ channel: 'c', chatId: '1', senderId: 'u', text: 'a' });
    await bus.publishInbound({ channel: 'c', chatId: '1', senderId: 'u', text: 'b' });
    expectPrinted('inbound queue_full');
  });

  it('MessageBusOptions (types.ts)', async () => {
    const options: MessageBusOptions = { clock: createManualClock(), capacity: 500, overflow: 'drop-oldest' };
  });

  it('ReceiveOptions (types.ts)', async () => {
    const options: ReceiveOptions = { signal: AbortSignal.timeout(1000) };
  });

  it('MessageBus (types.ts)', async () => {
    const bus = createMessageBus();
    await bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: 'hello' });
    for await (const message of bus.inbound()) {
      log(message.text);
      expectPrinted('hello');
      break;
    }
  });

  it('PlatformOrder (order.ts)', async () => {
    const order: PlatformOrder = { scope: 'tg:-100123', position: [4812] };
  });

  it('MAX_ORDER_POSITION_LENGTH (order.ts)', async () => {
    log(MAX_ORDER_POSITION_LENGTH);
    expectPrinted('4');
  });

  it('OrderComparison (order.ts)', async () => {
    const comparison: OrderComparison = 'unknown';
  });

  it('comparePlatformOrder (order.ts)', async () => {
    const prompt = { scope: 'tg:1', position: [41] };
    const reply = { scope: 'tg:1', position: [42] };
    log(comparePlatformOrder(reply, prompt));
    expectPrinted('after');
    log(comparePlatformOrder(reply, { scope: 'tg:2', position: [1] }));
    expectPrinted('unknown');
  });

  it('isPlatformOrder (order.ts)', async () => {
    log(isPlatformOrder({ scope: 'slack:C1', position: [1_700_000_000, 100] }));
    expectPrinted('true');
    log(isPlatformOrder({ scope: 'slack:C1', position: [] }));
    expectPrinted('false');
  });
});
