// The bot's one setting, `safety.require_confirmation` (channel-confirmation.md): on (the default),
// writes wait for 确认; off, they run without a prompt. Set globally or per chat (the chat's session
// key is the settings "campaign"), kept in the bot's Store, and read fresh at the start of each turn.
import type { Clock, Store } from '@parley/core';
import { createSettings, defineSetting, defineSettings, type Settings } from '@parley/settings';
import { z } from 'zod';

export const chatSettingsRegistry = defineSettings([
  defineSetting({
    key: 'safety.require_confirmation',
    schema: z.boolean(),
    default: true,
    effects: ['tools'],
  }),
]);

export type ChatSettings = Settings<typeof chatSettingsRegistry>;

export function createChatSettings(store: Store, clock: Clock): ChatSettings {
  return createSettings(chatSettingsRegistry, { store, clock, keyPrefix: 'channel-confirm:settings:' });
}
