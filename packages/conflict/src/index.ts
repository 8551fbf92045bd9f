/**
 * The check-and-retry loop: detectors compare the model's proposal (text and tool calls) with the
 * authoritative state, a tool gate judges the calls, and a rejected attempt is regenerated with
 * `conflict_debug` and `tool_feedback` appended to the previous request, at most K times, before a
 * `conflict_report` goes to a person. The same loop runs review gates (pass / revise / block,
 * at most 3 revise rounds, then escalation). Every attempt is recorded for audit.
 *
 * @packageDocumentation
 * @module @parley/conflict
 */
export {
  createConflictLoop,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_ERROR_RETRIES,
  DEFAULT_MAX_CALLS_PER_ATTEMPT,
} from './conflict-loop.js';
export type { ConflictLoop, ConflictLoopOptions, ConflictRunOptions } from './conflict-loop.js';
export { createReviewGate, DEFAULT_MAX_REVISIONS, DEFAULT_REVIEW_TTL_MS } from './review-gate.js';
export type {
  ReviewGate,
  ReviewGateOptions,
  ReviewRunOptions,
  Reviewer,
  ReviewContext,
} from './review-gate.js';
export { defineDetector } from './detector.js';
export type { Detector, DetectorInit, DetectContext, DetectedConflict, DetectResult } from './detector.js';
export type { ToolGateLike, ToolGateContext, ToolGateResult } from './gate.js';
export { defineHpClaimDetector } from './detectors/hp-claim.js';
export type { HpClaimDetectorOptions } from './detectors/hp-claim.js';
export { defineMoveClaimDetector } from './detectors/move-claim.js';
export type { MoveClaimDetectorOptions } from './detectors/move-claim.js';
export { defineProtectedFieldsDetector } from './detectors/protected-fields.js';
export type { ProtectedFieldsDetectorOptions } from './detectors/protected-fields.js';
export {
  DEFAULT_HP_CLAIM_PATTERNS,
  DEFAULT_MOVE_CLAIM_PATTERNS,
  DEFAULT_CLAIM_GUARD,
} from './detectors/claims.js';
export type { ClaimPattern } from './detectors/claims.js';
export { toFeedbackText } from './feedback.js';
export { TOOL_FAILURE_STATUSES, REVIEW_SEVERITIES, REVIEW_VERDICTS } from './types.js';
export { ATTEMPT_STATUSES, CONFLICT_REPORT_REASONS } from './records.js';
export type {
  ToolCall,
  Proposal,
  ConflictDebug,
  Conflict,
  ToolFailureStatus,
  FailedCall,
  FailedCallIssue,
  ToolFeedback,
  AppliedAction,
  DeferredCall,
  ReviewIssue,
  ReviewVerdict,
  RecognisedCall,
  AlreadyApplied,
} from './types.js';
export type {
  RetryFeedback,
  AttemptRequest,
  GenerateContext,
  GenerateFn,
  AttemptStatus,
  AttemptRecord,
  ConflictReportReason,
  ConflictReport,
  ConflictOutcome,
  ConflictLoopEvents,
} from './records.js';
export { ConflictError, CONFLICT_ERROR_CODES } from './errors.js';
export type { ConflictErrorCode } from './errors.js';
