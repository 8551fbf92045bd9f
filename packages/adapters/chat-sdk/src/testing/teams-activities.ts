import type { Clock } from '@parley/core';
import { ChatSdkAdapterError } from '../errors.js';
import type { TeamsDeliveryMore, TeamsSentActivity, TeamsUser } from './teams-types.js';

/** Where the stand-in's activities happen: the bot, its conversation, the service and the ids. */
export interface TeamsScene {
  readonly clock: Clock;
  readonly appId: string;
  readonly conversationId: string;
  readonly serviceUrl: string;
  readonly nextId: () => string;
}

/** A person's channel message to the bot, `<at>bot</at>` first when `mention`. */
export function messageActivity(
  scene: TeamsScene,
  from: TeamsUser,
  text: string,
  more: TeamsDeliveryMore & { readonly mention?: boolean },
): Record<string, unknown> {
  const mention = `<at>bot</at>`;
  return {
    ...activityBase(scene, from, more),
    type: 'message',
    text: more.mention === true ? `${mention} ${text}` : text,
    textFormat: 'plain',
    entities:
      more.mention === true
        ? [{ type: 'mention', text: mention, mentioned: { id: `28:${scene.appId}`, name: 'bot' } }]
        : [],
  };
}

/**
 * A click on button `button` of a sent card: an `adaptiveCard/action` invoke, or a message with
 * the button's data as `value` when `as` is `submit`.
 *
 * @throws ChatSdkAdapterError `invalid_argument` when the card has no such button.
 */
export function clickActivity(
  scene: TeamsScene,
  from: TeamsUser,
  card: TeamsSentActivity,
  button: number,
  more: TeamsDeliveryMore & { readonly as?: 'invoke' | 'submit' },
): Record<string, unknown> {
  const data = card.buttons[button]?.data;
  if (data === undefined)
    throw new ChatSdkAdapterError('invalid_argument', `the card ${card.id} has no button ${button}`);
  const common = { ...activityBase(scene, from, more), replyToId: card.id };
  if (more.as === 'submit') return { ...common, type: 'message', value: data };
  return {
    ...common,
    type: 'invoke',
    name: 'adaptiveCard/action',
    value: { action: { type: 'Action.Execute', data } },
  };
}

function activityBase(scene: TeamsScene, from: TeamsUser, more: TeamsDeliveryMore): Record<string, unknown> {
  const { conversationId } = scene;
  return {
    id: more.id ?? scene.nextId(),
    timestamp: new Date(more.at ?? scene.clock.now()).toISOString(),
    serviceUrl: scene.serviceUrl,
    channelId: 'msteams',
    from: { id: from.id, name: from.name },
    recipient: { id: `28:${scene.appId}`, name: 'bot' },
    conversation: { id: conversationId, conversationType: 'channel', isGroup: true, tenantId: 'tenant' },
    channelData: {
      tenant: { id: 'tenant' },
      team: { id: '19:team@thread.tacv2' },
      channel: { id: conversationId },
    },
  };
}
