import { type Clock, generateId } from '@parley/core';
import type { LoopbackSocket } from '@parley/testing/loopback-ws';
import { DingTalkAdapterError } from '../errors.js';
import type {
  DingTalkAck,
  DingTalkPush,
  DingTalkSentMessage,
  DingTalkStandInClickOptions,
} from '../standin-types.js';
import { cardCallbackOf, type StandInApp } from './standin-payloads.js';

/** What a push needs: the stream socket, the app it pushes for, and the clock its frames are stamped by. */
export interface PushState {
  readonly socket: LoopbackSocket;
  readonly clientId: string;
  readonly clock: Clock;
}

/**
 * Pushes a CALLBACK frame on the stream as DingTalk does (`data` as JSON text, or as given when
 * `raw`); `acked` settles with the client's acknowledgement, and `redeliver` pushes it again.
 */
export function pushFrame(
  at: PushState,
  topic: string,
  data: unknown,
  more: { messageId?: string; raw?: boolean } = {},
): DingTalkPush {
  const messageId = more.messageId ?? generateId('standin_');
  const acked = at.socket.nextFrame(
    (frame) => (frame as Partial<DingTalkAck>).headers?.messageId === messageId,
  );
  at.socket.send({
    specVersion: '1.0',
    type: 'CALLBACK',
    headers: {
      appId: at.clientId,
      connectionId: 'standin-connection',
      contentType: 'application/json',
      messageId,
      time: String(at.clock.now()),
      topic,
    },
    data: more.raw === true ? String(data) : JSON.stringify(data),
  });
  return {
    messageId,
    acked: acked as Promise<DingTalkAck>, // a frame that names messageId: an acknowledgement
    redeliver: () => pushFrame(at, topic, data, { ...more, messageId }),
  };
}

/**
 * The card callback for a click on `button` of the last card sent (or of `more.outTrackId`).
 *
 * @throws DingTalkAdapterError `invalid_argument` when no such card with such a button was sent.
 */
export function clickCallbackOf(
  app: StandInApp,
  sent: readonly DingTalkSentMessage[],
  button: string | RegExp,
  more: DingTalkStandInClickOptions,
): Record<string, unknown> {
  const card = sent
    .filter((m) => m.kind === 'card' && (more.outTrackId === undefined || m.outTrackId === more.outTrackId))
    .at(-1);
  const found = card?.buttons.find((b) =>
    typeof button === 'string' ? b.label === button : button.test(b.label),
  );
  if (card?.outTrackId === undefined || found === undefined)
    throw new DingTalkAdapterError(
      'invalid_argument',
      `No card ${more.outTrackId ?? ''} with a button ${String(button)} was sent`,
      { details: { button: String(button) } },
    );
  const where = {
    ...more,
    outTrackId: card.outTrackId,
    ...(card.conversationId === undefined ? {} : { spaceId: card.conversationId }),
  };
  return cardCallbackOf(app, { value: more.value ?? found.value }, where);
}
