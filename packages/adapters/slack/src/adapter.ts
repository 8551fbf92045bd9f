import type { DeliverInbound, InboundInterceptor, SendReceipt } from '@parley/bus';
import { createEmitter, type Unsubscribe } from '@parley/core';
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { mapBody, tsToMs, tsToOrder } from './inbound.js';
import { toPostMessage } from './outbound.js';
import { toAdapterError } from './platform-errors.js';
import type { SlackAdapter, SlackAdapterEvents, SlackAdapterOptions } from './types.js';

/**
 * Creates a `ChannelAdapter` for `@parley/bus` on a Bolt app: its global middleware
 * (`app.use(slack.middleware)`) hands messages, thread replies, edits, deletions and clicks on
 * Parley's Block Kit buttons to the bus, and its `send` posts what the bus publishes with
 * `chat.postMessage` (cards as Block Kit).
 *
 * Use it with any Bolt receiver (HTTP, Express, Socket Mode, Lambda): the adapter reads the
 * request body Bolt parsed and never starts the app. Requests it does not map, and clicks on the
 * app's own buttons, go on to the app's listeners; so do messages that the
 * {@link SlackAdapter.handoff} interceptor lets through.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createSlackAdapter } from '@parley/slack';
 * import { App } from '@slack/bolt';
 *
 * const app = new App({ token: 'xoxb-1', signingSecret: 's', deferInitialization: true });
 * const slack = createSlackAdapter({ client: app.client });
 * app.use(slack.middleware); // before the app's listeners
 * const bus = createMessageBus();
 * const detach = await bus.attach(slack);
 * console.log(slack.channel); // slack
 * detach();
 * ```
 */
export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const { client } = options;
  const channel = options.channel ?? 'slack';
  const events = createEmitter<SlackAdapterEvents>();
  const handoffName = `${channel}:handoff`;
  let deliver: DeliverInbound | undefined;

  const middleware: Middleware<AnyMiddlewareArgs> = async (args) => {
    const current = deliver;
    if (current === undefined) return args.next();
    const { body, context } = args;
    const mapped = mapBody(body, { botUserId: context.botUserId, botId: context.botId }, channel);
    if (mapped.kind === 'skip') {
      events.emit('skipped', { reason: mapped.reason, type: typeOf(body) });
      return args.next();
    }
    const ack = mapped.ack ? (args as { ack?: () => Promise<void> }).ack : undefined; // interactions carry ack
    if (ack !== undefined) {
      try {
        await ack(); // within Slack's 3 seconds, before the gate decides
      } catch (error) {
        events.emit('error', { code: 'ack_failed', error });
      }
    }
    const result = await current(mapped.input);
    if (result.status === 'intercepted' && result.by === handoffName) return args.next();
  };

  return {
    channel,
    async send(message): Promise<SendReceipt> {
      const params = toPostMessage(message);
      let posted: { ts?: unknown; channel?: unknown };
      try {
        posted = await client.chat.postMessage(params);
      } catch (error) {
        throw toAdapterError(error);
      }
      // Slack answers every posted message with its ts and the channel it landed in (a DM's
      // channel id when `channel` named a user), the channel inbound replies come from.
      const ts = typeof posted.ts === 'string' ? posted.ts : undefined;
      const where = typeof posted.channel === 'string' ? posted.channel : params.channel;
      // A message's ts is its id within its channel (chat.update and chat.delete take it).
      return {
        sentAt: tsToMs(ts),
        order: tsToOrder(channel, where, ts),
        ...(ts === undefined ? {} : { messageId: ts }),
      };
    },
    connect(d): Unsubscribe {
      deliver = d;
      return () => {
        deliver = undefined;
      };
    },
    middleware,
    handoff(): InboundInterceptor {
      return { name: handoffName, intercept: (message) => message.channel === channel };
    },
    on: (event, listener) => events.on(event, listener),
  };
}

function typeOf(body: unknown): string {
  const root = body as { type?: unknown; event?: { type?: unknown; subtype?: unknown } };
  const event = root.event;
  const parts = [root.type, event?.type, event?.subtype].filter((part) => typeof part === 'string');
  return parts.join('/');
}
