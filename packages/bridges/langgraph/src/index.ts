/**
 * Parley in LangGraph.js: `interrupt()` inside a node answered by a person in chat through a
 * `@parley/confirm` gate (bound to the exact action, with its deadline, authorized once) and
 * resumed with `new Command({ resume })` by interrupt id, also after a restart from the graph's
 * checkpointer; and a tools node with Parley's tool gate in front, refusals returned as
 * `ToolMessage`s the model reads.
 *
 * @packageDocumentation
 * @module @parley/langgraph
 */
export { requestConfirmation, CONFIRM_INTERRUPT_KIND } from './interrupt.js';
export type {
  ConfirmInterruptRequest,
  ConfirmInterruptValue,
  ConfirmAnswer,
  NodeConfirmation,
} from './interrupt.js';
export { runWithConfirmation } from './runner.js';
export { DEFAULT_MAX_CONFIRMATION_ROUNDS } from './drive.js';
export type { ConfirmableGraph, RunWithConfirmationOptions } from './drive.js';
export { graphResumeHandlers } from './resume.js';
export type { GraphResumed, GraphResumeOptions } from './resume.js';
export { createGatedToolNode } from './tool-node.js';
export type { GatedToolNode, GatedToolNodeOptions } from './tool-node.js';
export { LangGraphBridgeError, LANGGRAPH_BRIDGE_ERROR_CODES } from './errors.js';
export type { LangGraphBridgeErrorCode } from './errors.js';
export { DEFAULT_MAX_ROUNDS } from './former-names.js';
