/**
 * A bridge between OpenAI Agents JS and Parley: `needsApproval` interruptions answered by a person
 * in chat through a Parley confirm gate bound to the call's exact arguments and a deadline, the
 * `RunState` kept in the Parley `Store` so that a restart or another replica resumes the run exactly
 * once, and Parley tool policies as tool input guardrails whose reasons the model reads.
 *
 * @packageDocumentation
 * @module @parley/openai-agents
 */
export { createAgentsBridge } from './bridge.js';
export type {
  AgentsBridge,
  AgentsBridgeOptions,
  AgentsRunOptions,
  AgentsRunOutcome,
  AgentsResumeOutcome,
} from './types.js';
export { toInputGuardrail } from './guardrail.js';
export type { PolicyGuardrailOptions } from './guardrail.js';
export { AgentsBridgeError, AGENTS_BRIDGE_ERROR_CODES } from './errors.js';
export type { AgentsBridgeErrorCode } from './errors.js';
