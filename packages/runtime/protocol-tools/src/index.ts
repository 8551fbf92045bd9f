/**
 * Request/response protocols as model tools: turn a `@parley/correlate` protocol (shutdown,
 * plan approval…) into `@parley/tools` definitions, so a model-driven teammate requests, answers
 * and reviews through the same request_id handshake as any other party, with every refusal fed
 * back as `tool_feedback`; and the lead's side of the team protocols (`createTeamLead`): the
 * roster, shutdown requests, plan review, pending requests per teammate and the seed's trackers.
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
export { createTeamLead } from './team-lead.js';
export { TEAM_REFUSAL_CODES, MAX_TEAMMATES } from './team-types.js';
export type {
  TeamLead,
  TeamLeadOptions,
  RosterRestored,
  TeamLeadEvents,
  TeamRefusal,
  TeamRefusalCode,
  TeammateRecord,
  TeammateStatus,
  TeamTrackers,
  ShutdownRequested,
  PlanReviewed,
} from './team-types.js';
export { createProtocolAgent } from './agent.js';
export type {
  ProtocolAgent,
  ProtocolAgentOptions,
  ProtocolAgentEvents,
  ProtocolAgentModel,
  ProtocolAgentPrompt,
  ProtocolAgentTurn,
} from './agent-types.js';
