/**
 * A stand-in of Slack for testing a Bolt app offline (Node only): the Web API on a loopback HTTP
 * server (Bolt's `clientOptions.slackApiUrl`), signed Events API and interactivity requests to the
 * app's Request URL, and Socket Mode envelopes; it records what the app posted. Import it from
 * `@parley/slack/testing`; the main entry stays free of `node:` modules.
 *
 * @packageDocumentation
 * @module @parley/slack/testing
 */
export { createSlackStandIn } from './standin.js';
export type {
  SlackDeliverOptions,
  SlackDelivery,
  SlackStandIn,
  SlackStandInCall,
  SlackStandInFailure,
  SlackStandInOptions,
} from './standin-types.js';
export type {
  SlackClickOptions,
  SlackEventBody,
  SlackEventCallback,
  SlackInteraction,
  SlackMessageBody,
  SlackMessageOptions,
  SlackStandInPayloads,
} from './standin-payload-types.js';
