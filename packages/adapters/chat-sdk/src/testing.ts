/// <reference types="node" />
/**
 * Stand-ins of the platforms a Chat SDK bot talks to, on loopback, for testing a bot offline with
 * the real `chat` and `@chat-adapter/*`: Microsoft Teams' Bot Framework (signed activities in, Bot
 * Connector API out) and Discord (signed interactions and Gateway-forwarded messages in, REST out).
 * Node only; import it from `@parley/chat-sdk/testing`.
 *
 * @packageDocumentation
 * @module @parley/chat-sdk/testing
 */
export { createTeamsStandIn } from './testing/teams.js';
export { trustTeamsStandIn } from './testing/teams-trust.js';
export type { TeamsStandIn, TeamsStandInOptions } from './testing/teams.js';
export type { TeamsDeliveryMore, TeamsSentActivity, TeamsUser } from './testing/teams-types.js';
export { settledFetch } from './testing/endpoint.js';
export type { BotAnswer, BotEndpoint } from './testing/endpoint.js';
export { createDiscordStandIn } from './testing/discord.js';
export { snowflakeAt } from './testing/snowflake.js';
export type { DiscordStandIn, DiscordStandInOptions } from './testing/discord.js';
export type { DiscordMessageMore, DiscordPostedMessage, DiscordUser } from './testing/discord-types.js';
