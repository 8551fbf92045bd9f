import type { DeliverInbound, InboundInput, PublishResult } from '@parley/bus';
import type { RecentMap } from '@parley/core';
import type { DingTalkStreamClient, DingTalkStreamFrame } from '../stream-client.js';
import { DingTalkAdapterError } from '../errors.js';
import {
  type ChatPlace,
  cardToInbound,
  type DingTalkCardCallback,
  type DingTalkRobotMessage,
  robotToInbound,
} from '../inbound.js';

/** What the stream listeners read and write. */
export interface StreamSide {
  readonly client: DingTalkStreamClient;
  readonly channel: string;
  readonly botName: string | undefined;
  readonly onError: ((error: DingTalkAdapterError) => void) | undefined;
  /** Where each conversation is; a robot message records its own. */
  readonly chats: RecentMap<string, ChatPlace>;
  /** Where each sent card is, keyed by its `outTrackId`. */
  readonly cards: RecentMap<string, ChatPlace>;
}

/** The stream listeners of one attachment: robot messages and card callbacks, mapped and delivered. */
export function streamListeners(
  at: StreamSide,
  deliver: DeliverInbound,
): Record<'robot' | 'card', (frame: DingTalkStreamFrame) => void> {
  return {
    robot(frame) {
      const message = parse(frame.data) as DingTalkRobotMessage | undefined;
      const input =
        message === undefined
          ? undefined
          : robotToInbound(message, frame.headers.messageId, at.botName, at.channel);
      if (message !== undefined && input !== undefined) {
        at.chats.set(input.chatId, {
          chatId: input.chatId,
          conversationType: message.conversationType,
          staffId: message.conversationType === '1' ? input.senderId : undefined,
        });
      }
      void handle(at, deliver, frame, input);
    },
    card(frame) {
      const click = parse(frame.data) as DingTalkCardCallback | undefined;
      const place = click?.outTrackId === undefined ? undefined : at.cards.get(click.outTrackId);
      const input = click === undefined ? undefined : cardToInbound(click, frame.headers.messageId, place);
      void handle(at, deliver, frame, input);
    },
  };
}

/** Delivers, then acknowledges unless the bus could not take it now (DingTalk pushes it again). */
async function handle(
  at: StreamSide,
  deliver: DeliverInbound,
  frame: DingTalkStreamFrame,
  input: Omit<InboundInput, 'channel'> | undefined,
): Promise<void> {
  const { messageId } = frame.headers;
  const result: PublishResult | undefined = input === undefined ? undefined : await deliver(input);
  if (result?.status === 'rejected' && (result.code === 'queue_full' || result.code === 'closed')) {
    at.onError?.(
      new DingTalkAdapterError('not_delivered', `The bus refused a DingTalk stream message: ${result.code}`, {
        details: { code: result.code, messageId },
      }),
    );
    return;
  }
  at.client.socketCallBackResponse(messageId, {});
}

function parse(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
