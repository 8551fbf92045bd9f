/**
 * A bridge between the Vercel AI SDK and Parley: tool sets whose every call goes through a Parley
 * tool gate (refusals come back to the model as tool results), tool approvals answered by a person
 * in chat through a Parley confirm gate bound to the exact arguments and a deadline, kept in the
 * Parley `Store` so that a restart resumes the conversation once, and the conflict loop around
 * `generateText`.
 *
 * @packageDocumentation
 * @module @parley/ai-sdk
 */
export { createAiSdkBridge } from './bridge.js';
export type {
  AiSdkBridge,
  AiSdkBridgeOptions,
  BridgeRun,
  ApproveOptions,
  ApprovalAnswer,
  ApprovalSource,
  ResumedApproval,
} from './types.js';
export { toProposal, toConflictGenerate } from './conflict.js';
export type { GeneratedTurn } from './conflict.js';
export { AiSdkBridgeError, AI_SDK_BRIDGE_ERROR_CODES } from './errors.js';
export type { AiSdkBridgeErrorCode } from './errors.js';
