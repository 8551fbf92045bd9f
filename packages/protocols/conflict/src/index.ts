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
export { createConflictLoop } from './conflict-loop.js';
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_ERROR_RETRIES,
  DEFAULT_MAX_CALLS_PER_ATTEMPT,
} from './loop-options.js';
export type {
  ConflictLoop,
  ConflictLoopOptions,
  ConflictRunOptions,
  ConflictPolicy,
} from './loop-options.js';
export { checkToolCoverage } from './tool-coverage.js';
export type { ToolCoverage } from './tool-coverage.js';
export { createReviewGate } from './review-gate.js';
export { judgeReviewVerdict } from './review-verdict.js';
export type { ReviewJudgement } from './review-verdict.js';
export { DEFAULT_MAX_REVISIONS, DEFAULT_REVIEW_TTL_MS } from './review-options.js';
export type {
  ReviewGate,
  ReviewGateOptions,
  ReviewRunOptions,
  Reviewer,
  ReviewContext,
} from './review-options.js';
export { defineDetector } from './detector.js';
export type { Detector, DetectorInit, DetectContext, DetectedConflict, DetectResult } from './detector.js';
export type { ToolGateLike, ToolGateContext, ToolGateResult } from './gate.js';
export { defineProtectedFieldsDetector } from './detectors/protected-fields.js';
export type { ProtectedFieldsDetectorOptions } from './detectors/protected-fields.js';
export { defineFieldClaimDetector, DEFAULT_FIELD_CLAIM_PATTERNS } from './detectors/field-claims.js';
export type {
  AuthoritativeField,
  FieldClaimDetectorOptions,
  FieldClaimPattern,
} from './detectors/field-claims.js';
export { findClaims, DEFAULT_CLAIM_GUARD } from './detectors/claims.js';
export type { Claim, ClaimPattern } from './detectors/claims.js';
export { toFeedbackMessages, toFeedbackText } from './feedback.js';
export type { FeedbackMessage } from './feedback.js';
export { REVIEW_SEVERITIES, REVIEW_VERDICTS } from './verdict.js';
export { ATTEMPT_STATUSES } from './records.js';
export { CONFLICT_REPORT_REASONS } from './report.js';
export type {
  ToolCall,
  Proposal,
  ConflictDebug,
  Conflict,
  FailedCall,
  FailedCallIssue,
  ToolFeedback,
  AppliedAction,
  DeferredCall,
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
} from './records.js';
export type { ReviewIssue, ReviewVerdict } from './verdict.js';
export type {
  ConflictReportReason,
  ConflictReport,
  ConflictOutcome,
  ConflictLoopEvents,
} from './report.js';
export { ConflictError, CONFLICT_ERROR_CODES } from './errors.js';
export type { ConflictErrorCode } from './errors.js';
export { TOOL_FAILURE_STATUSES } from './former-names.js';
export type { ToolFailureStatus } from './former-names.js';
