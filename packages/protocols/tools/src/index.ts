/**
 * Tools the model may propose and the host decides on: tool definitions with args schemas and
 * rejection-reason enumerations, a gate built from the registry and the allowlist with
 * state-dependent policies, disabling until a time or turn, human confirmation for destructive
 * tools, at-most-once execution per call id and turn, the reference `tool_feedback`, and export to
 * (and parsing from) the function-calling formats of OpenAI, Anthropic and MCP.
 *
 * @packageDocumentation
 * @module @parley/tools
 */
export { defineTool } from './define.js';
export type {
  ToolInit,
  ToolDefinition,
  AnyToolDefinition,
  ToolNameOf,
  ToolExecuteContext,
} from './define.js';
export type { ToolRejection } from './rejection.js';
export { createToolGate } from './gate.js';
export { DEFAULT_TOOL_GATE_LIMITS } from './limits.js';
export type { ToolGateLimits } from './limits.js';
export { definePolicy } from './policy.js';
export type { TypedPolicyInput, TypedPolicyRefusal, DefinePolicyOptions } from './policy.js';
export type { ToolGateSnapshot, RememberedCall } from './snapshot.js';
export type {
  ToolGate,
  ToolGateOptions,
  ToolRunOptions,
  ToolRunOptionsWithoutContext,
  CreatedToolGate,
} from './gate-types.js';
export type {
  ToolPolicy,
  ToolPolicyInput,
  ToolPolicyRefusal,
  ToolConfirmFn,
  ToolConfirmRequest,
  ToolConfirmAnswer,
  ToolRepairHook,
  ToolRepairInput,
  ToolRefusalInfo,
} from './hook-types.js';
export type { DisabledTool } from './disabled-tool.js';
export { checkToolRegistry } from './registry.js';
export type { ToolRegistryInput } from './registry.js';
export { toLoopGate } from './loop-gate.js';
export type { LoopGate, LoopGateContext } from './loop-gate.js';
export {
  toToolJsonSchema,
  toOpenAITools,
  toOpenAIResponsesTools,
  toAnthropicTools,
  toMcpTools,
} from './export.js';
export type {
  ToolJsonSchema,
  OpenAIExportOptions,
  OpenAIChatTool,
  OpenAIResponsesTool,
  AnthropicTool,
  McpTool,
} from './export-types.js';
export { parseOpenAIToolCalls, parseAnthropicToolUses } from './parse.js';
export { classifySql } from './sql-risk.js';
export type { SqlClassification, SqlKind } from './sql-risk.js';
export type { ParsedToolCalls } from './parse.js';
export { TOOL_REFUSAL_CODES } from './types.js';
export type {
  ToolCallProposal,
  ToolRefusalCode,
  DisableUntil,
  FailedToolCall,
  ToolGateFeedback,
  ExecutedToolCall,
  RepairRecord,
  ToolCallRecord,
  ToolBatchResult,
  ToolGateEvents,
} from './types.js';
export { ToolsError, TOOLS_ERROR_CODES } from './errors.js';
export type { ToolsErrorCode } from './errors.js';
export type { ToolFeedback } from './former-names.js';
export { TOOL_FAILURE_STATUSES } from './former-names.js';
export type { ToolFailureStatus } from './former-names.js';
