/**
 * Node-only helpers for testing a platform adapter against a stand-in of the platform on
 * loopback: an HTTP server that answers from a route table and records every request, a
 * client that posts webhooks the way the platform would, and a server for the bot's own
 * webhook handler to receive them. Import it from
 * `@parley/testing/loopback`; the main entry stays free of `node:` modules.
 *
 * @packageDocumentation
 * @module @parley/testing/loopback
 */
export { startLoopbackServer, rateLimited } from './loopback/server.js';
export { sendRequest } from './loopback/client.js';
export { createCallLog } from './loopback/calls.js';
export type { CallLog } from './loopback/calls.js';
export { serveLoopback } from './loopback/serve.js';
export type { LoopbackEndpoint, LoopbackHandler } from './loopback/serve.js';
export type { SendRequestInit, SentRequest } from './loopback/client.js';
export type {
  LoopbackAnswer,
  LoopbackConnection,
  LoopbackRequest,
  LoopbackRoute,
  LoopbackServer,
  LoopbackServerOptions,
} from './loopback/types.js';
