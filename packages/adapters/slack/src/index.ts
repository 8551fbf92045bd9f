/**
 * Slack for Parley: a `ChannelAdapter` for `@parley/bus` on a Bolt app. Messages, thread replies,
 * edits, deletions, mentions of the app and clicks on Parley's Block Kit buttons go to the bus; the
 * bus's messages and confirm/cancel cards go out through `chat.postMessage` as Block Kit; Web API
 * refusals and rate limits come back as typed errors.
 *
 * @packageDocumentation
 * @module @parley/slack
 */
export { createSlackAdapter } from './adapter.js';
export type { SlackAdapter, SlackAdapterOptions, SlackAdapterEvents, SlackSkipReason } from './types.js';
export { SlackAdapterError, SLACK_ADAPTER_ERROR_CODES } from './errors.js';
export type { SlackAdapterErrorCode } from './errors.js';
