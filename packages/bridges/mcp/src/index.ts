/**
 * Parley in front of the MCP TypeScript SDK. On the client side, every call to a server's tools
 * passes a Parley tool gate (allowlist, JSON Schema, policies; refusals come back as tool results
 * the model reads) and destructive tools wait for a person's confirmation in chat, bound to the
 * exact arguments and resumed exactly once after a restart; a server's elicitations are answered
 * by a person in chat. On the server side, a Parley tool gate is served as an MCP server's tools,
 * with the person's deadline kept apart from the client's request timeout.
 *
 * @packageDocumentation
 * @module @parley/mcp
 */
export { createMcpClientGate } from './client.js';
export type { McpClientGate, McpClientGateOptions, McpCallOptions } from './client.js';
export { mcpResumeHandlers } from './resume.js';
export type { McpResumed, McpResumeOptions } from './resume.js';
export { serveToolGate, DEFAULT_PROGRESS_INTERVAL_MS } from './server.js';
export type { McpServeOptions, McpRequestExtra } from './server.js';
export {
  answerElicitations,
  ELICITATION_ACTION,
  ELICITATION_REFUSAL_CODES,
  ELICITATION_REFUSAL_META,
} from './elicit.js';
export type { AnswerElicitationsOptions, ElicitationRoute, ElicitationRefusal } from './elicit.js';
export { toRefusalResult } from './results.js';
export { McpBridgeError, MCP_BRIDGE_ERROR_CODES } from './errors.js';
export type { McpBridgeErrorCode } from './errors.js';
