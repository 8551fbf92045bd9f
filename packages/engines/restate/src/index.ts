/**
 * Parley on Restate: correlated requests (`@parley/correlate` protocols), confirmations
 * (`@parley/confirm`'s pure step) and pipelines hosted by a Restate server. Restate keeps the records, the deadlines (durable timers) and the waits (awakeables);
 * Parley's own pure rules decide every reply, so a request settles exactly as it would with the
 * embedded Store runner, across app restarts, server restarts and replicas.
 *
 * @packageDocumentation
 * @module @parley/restate
 */
export { ParleyRestateError, RESTATE_ERROR_CODES } from './errors.js';
export type { RestateErrorCode } from './errors.js';
export type { RequestRecord } from './request-record.js';
export { defineRequests } from './requests.js';
export { DEFAULT_MAX_WATCHERS } from './requests-types.js';
export type {
  CancelResult,
  OpenRequest,
  OpenResult,
  RequestsHandlers,
  RequestsObject,
  RequestsOptions,
  WatchResult,
} from './requests-types.js';
export { awaitRequest, DEFAULT_MAX_WAKEUPS } from './await-request.js';
export { definePipelineWorkflow } from './pipeline-workflow.js';
export type {
  DecideResult,
  PipelineRunResult,
  PipelineWorkflowHandlers,
  PipelineWorkflowOptions,
} from './pipeline-workflow-types.js';
export { defineConfirmations } from './confirmations.js';
export { awaitConfirmation } from './await-confirmation.js';
export type {
  ConfirmationsHandlers,
  ConfirmationsObject,
  ConfirmationsOptions,
  ConfirmOutbound,
  InboundClick,
  InboundReply,
  InboundResult,
  NewConfirmationRequest,
  RequestConfirmationResult,
} from './confirmations-types.js';
export type { Watched } from './watched.js';
