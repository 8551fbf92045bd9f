/**
 * Request/response protocols as model tools: turn a `@parley/correlate` protocol (shutdown,
 * plan approval…) into `@parley/tools` definitions, so a model-driven teammate requests, answers
 * and reviews through the same request_id handshake as any other party, with every refusal fed
 * back as `tool_feedback`.
 *
 * @packageDocumentation
 * @module @parley/protocol-tools
 */
export { defineProtocolTools } from './define.js';
export type {
  ProtocolTools,
  ProtocolToolsOptions,
  ProtocolToolContext,
  RequestToolResult,
  RespondToolResult,
} from './define.js';
export type { ProtocolNotice } from './notice.js';
export { REQUEST_TOOL_REASONS, RESPOND_TOOL_REASONS } from './reasons.js';
export type { RequestToolReason, RespondToolReason } from './reasons.js';
