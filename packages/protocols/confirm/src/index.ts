/**
 * Human confirmation of destructive actions over chat channels: a gate that prompts a session,
 * intercepts the next reply of an allowed user on the bus (never forwarding it to the agent),
 * parses it strictly, binds the decision to a digest of the exact action, resolves card clicks by
 * signed id, supports exact multi-step confirmations, survives restarts through the core `Store`,
 * and records every decision for audit.
 *
 * @packageDocumentation
 * @module @parley/confirm
 */
export { createConfirmGate } from './gate.js';
export { CONFIRMATION_RECORD, DECISION_RECORD } from './records.js';
export type { DecisionRecord } from './records.js';
export { authorizeStep, confirmRules, confirmStep, createConfirmation } from './step.js';
export type {
  PromptShown,
  AdmissionRules,
  AdmissionView,
  AnswerRules,
  ConfirmationAdmission,
  ConfirmationAnswer,
  ConfirmationVerdict,
  DecisionDetails,
  Confirmation,
  ConfirmationEffect,
  ConfirmationEvent,
  ConfirmationRecord,
  ConfirmationTransition,
  ConfirmRules,
  ConfirmRulesOptions,
  NewConfirmation,
  UsableDecision,
} from './step.js';
export {
  DEFAULT_CONFIRM_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_CONFIRMATIONS,
  DEFAULT_AFTER_DECISION_MS,
  MAX_SUMMARY_LENGTH,
  CONFIRM_OUTCOMES,
  DECISION_REASONS,
} from './outcomes.js';
export type { ConfirmOutcome, DecisionReason, ApproverPolicy } from './outcomes.js';
export { AUTHORIZE_REFUSAL_CODES, CARD_REFUSAL_CODES, IGNORED_REPLY_CODES } from './refusal-codes.js';
export type { ConfirmGate, ConfirmGateOptions } from './types.js';
export type {
  ConfirmRequest,
  ConfirmDecision,
  ConfirmStep,
  AuthorizeResult,
  PendingConfirmation,
  FollowedConfirmation,
} from './decision.js';
export type { ConfirmEvents, ConfirmMessages } from './events.js';
export type { ResumeHandler } from './types.js';
export {
  parseReply,
  normalizeReply,
  normalizeExact,
  defineVocabulary,
  DEFAULT_VOCABULARY,
  DEFAULT_VOCABULARY_WORDS,
  REPLY_VERDICTS,
  MAX_REPLY_LENGTH,
} from './vocabulary.js';
export type { Vocabulary, VocabularyWords, ReplyVerdict } from './vocabulary.js';
export { digestAction } from './digest.js';
export { consentFactsOf, promptedFact } from './consent.js';
export { allowanceCovers, allowanceOf, allowanceScope } from './allowance.js';
export type { AllowanceView, StandingAllowance } from './allowance.js';
export type { ConfirmAction } from './digest.js';
export { ConfirmError, CONFIRM_ERROR_CODES } from './errors.js';
export type { ConfirmErrorCode } from './errors.js';
export { DEFAULT_MAX_PENDING, canonicalJson } from './former-names.js';
