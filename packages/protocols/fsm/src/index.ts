/**
 * Typed finite-state machines and step flows for agent protocols: literal state and event names,
 * pure transitions with refusals as data, timeouts on an injected clock with absolute deadlines,
 * plain-JSON snapshots with checked restore and migration, and Mermaid drawings.
 *
 * @packageDocumentation
 * @module @parley/fsm
 */
export { defineMachine } from './machine.js';
export type { Machine, MachineConfig } from './machine.js';
export { createActor } from './actor.js';
export { DEFAULT_HISTORY_LIMIT } from './actor-types.js';
export type { Actor, ActorEvents, ActorOptions } from './actor-types.js';
export { defineFlow } from './flow.js';
export type { Flow, FlowConfig } from './flow.js';
export { createFlowSession } from './flow-session.js';
export type { FlowSession, FlowSessionEvents, FlowSessionOptions } from './flow-session.js';
export type {
  FailurePolicy,
  ExitVerdict,
  FlowFields,
  FlowIssue,
  FlowPart,
  FlowSnapshot,
  FlowStatus,
  FlowStep,
  FlowSubmitResult,
  StepFailure,
} from './flow-types.js';
export { describeFlowResult, toFlowAudit } from './flow-report.js';
export type { FlowAudit } from './flow-report.js';
export { toMermaid } from './mermaid.js';
export { requestMachine, defineRequestMachine } from './request-machine.js';
export type { RequestContext, RequestEvent, RequestMachineOptions, RequestState } from './request-machine.js';
export { FsmError, FSM_ERROR_CODES } from './errors.js';
export type { FsmErrorCode } from './errors.js';
export { FSM_REFUSAL_CODES } from './results.js';
export type {
  Assign,
  Deadline,
  EventObject,
  Guard,
  HistoryEntry,
  MachineEvent,
  MachineOptions,
  MachineSnapshot,
  StateConfig,
  TransitionConfig,
  TransitionSpec,
} from './types.js';
export type { FsmRefusal, FsmRefusalCode, SendResult, TransitionResult, Transitioned } from './results.js';
export type { StateOf, EventOf, ContextOf } from './extractors.js';
export { REFUSAL_CODES } from './former-names.js';
export type { RefusalCode, Refusal } from './former-names.js';
