import type { Clock } from '@parley/core';
import { ChatSdkAdapterError } from '../errors.js';
import type { DiscordMessageMore, DiscordPostedMessage, DiscordUser } from './discord-types.js';
import { snowflakeAt } from './snowflake.js';

/** Who the stand-in's events come from and go to, and how many it delivered (for their ids). */
export interface DiscordScene {
  readonly clock: Clock;
  readonly applicationId: string;
  readonly guildId: string;
  readonly channelId: string;
  readonly threads: ReadonlyMap<string, string>;
  delivered: number;
}

/** A person's message as the Discord adapter's Gateway listener forwards it (JSON text). */
export function gatewayMessage(
  scene: DiscordScene,
  from: DiscordUser,
  content: string,
  more: DiscordMessageMore,
): string {
  const { clock, applicationId } = scene;
  const at = more.at ?? clock.now();
  const data = {
    id: more.id ?? snowflakeAt(at, 100 + (scene.delivered++ % 1000)),
    channel_id: more.channelId ?? scene.channelId,
    guild_id: scene.guildId,
    channel_type: more.channelId === undefined ? 0 : 11,
    author: { id: from.id, username: from.username, global_name: null, bot: more.bot ?? false },
    content: more.mention === true ? `<@${applicationId}> ${content}` : content,
    timestamp: new Date(at).toISOString(),
    mentions: more.mention === true ? [{ id: applicationId, username: 'bot', bot: true }] : [],
    mention_roles: [],
    attachments: [],
  };
  return JSON.stringify({ type: 'GATEWAY_MESSAGE_CREATE', timestamp: clock.now(), data });
}

/**
 * The HTTP interaction body of a click on button `button` (counted across its rows) of a posted
 * message (JSON text, unsigned).
 *
 * @throws ChatSdkAdapterError `invalid_argument` when the message has no such button.
 */
export function buttonInteraction(
  scene: DiscordScene,
  from: DiscordUser,
  message: DiscordPostedMessage,
  button: number,
  id: string | undefined,
): string {
  const customId = (message.components ?? []).flatMap((row) => row.components)[button]?.custom_id;
  if (customId === undefined)
    throw new ChatSdkAdapterError('invalid_argument', `the message ${message.id} has no button ${button}`);
  return JSON.stringify({
    id: id ?? snowflakeAt(scene.clock.now(), 2000 + (scene.delivered++ % 1000)),
    application_id: scene.applicationId,
    type: 3,
    token: 'interaction-token',
    version: 1,
    guild_id: scene.guildId,
    channel_id: message.channel_id,
    channel: { id: message.channel_id, type: scene.threads.has(message.channel_id) ? 11 : 0 },
    member: { user: { id: from.id, username: from.username, global_name: null } },
    message: { id: message.id, channel_id: message.channel_id },
    data: { custom_id: customId, component_type: 2 },
  });
}
