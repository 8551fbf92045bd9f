// The cleanup protocol of cleanup-flow.txt as one defineFlow: nine steps with their required fields,
// exit conditions and failure handling. Nothing outside this definition decides whether the session
// moves on; the host only parses replies, performs side effects and reports what happened.
import { normalizeExact } from '@parley/confirm';
import { defineFlow, type FailurePolicy, type StepFailure } from '@parley/fsm';
import { z } from 'zod';
import { checkJustifications, EvidenceRef, words } from './evidence.js';
import { PLATFORMS, platformNamed, resolveScope } from './targets.js';

/** The nine steps, in order. */
export type CleanupStep =
  | 'goal'
  | 'platform-scope'
  | 'auth'
  | 'evidence'
  | 'risk-confirm'
  | 'export-decision'
  | 'execute'
  | 'notify'
  | 'close';

export const GOAL_TYPES = ['delete', 'delist', 'complaint', 'reminder', 'dmca_takedown'] as const;
export type GoalType = (typeof GOAL_TYPES)[number];
export const NOTIFY_MODES = ['none', 'telegram', 'email', 'signal'] as const;

/** Credentials must be short-lived: at most an hour left when they are presented. */
export const MAX_CREDENTIAL_TTL_MS = 60 * 60_000;
/** After this many failed adapter runs, the execute step hands the session to the manual queue. */
export const MAX_EXECUTE_ATTEMPTS = 3;

/** The platform action each goal turns into, and the only credential scope it may use. */
export const ACTIONS: Readonly<Record<GoalType, { readonly action: string; readonly scope: string }>> = {
  delete: { action: 'delete', scope: 'content:delete' },
  delist: { action: 'delist', scope: 'content:write' },
  complaint: { action: 'report', scope: 'report:write' },
  reminder: { action: 'remind', scope: 'message:send' },
  dmca_takedown: { action: 'takedown', scope: 'report:write' },
};

/** A goal is actionable when it says what and where: a few words, not a filler phrase. */
const VAGUE =
  /^(clean ?up|delete|remove|fix|help|stuff|things|everything|it|this|that|all|my|some|the|\s)+$/i;

/** "YES" exactly, after NFKC and trimming (full-width ＹＥＳ is YES; "yes" and "YES." are not). */
const exactYes = z.string().transform(normalizeExact).pipe(z.literal('YES'));

const CredentialCheck = z.object({
  status: z.enum(['valid', 'expired', 'invalid', 'unknown']),
  expires_in_ms: z.number().nullable(),
  scopes: z.array(z.string()),
});

const PlatformError = z.object({
  target: z.string().optional(),
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
});

export const cleanupFlow = defineFlow({
  id: 'cleanup-session',
  version: 1,
  steps: [
    {
      name: 'goal',
      prompt: 'What outcome do you want to achieve in this cleanup session?',
      fields: z.object({ goal_type: z.enum(GOAL_TYPES), intent_summary: z.string().trim().min(1) }),
      exit: (fields) => isSpecific(String(fields.intent_summary)) || 'The goal is too vague to act on',
      exitLabel: 'specific and actionable',
      onFailure: {
        action: 'retry',
        message:
          'Please narrow it down: what should happen (delete, delist, complaint, reminder or DMCA takedown), ' +
          'to which content, and where? For example: "DMCA takedown: remove the reposts of my photos on X" ' +
          'or "delete my old reddit posts that show my home address".',
      },
    },
    {
      name: 'platform-scope',
      prompt: 'Which platforms/targets are in scope? Please list URLs, IDs, or channels.',
      // Normalised and de-duplicated here, so the flow records canonical targets only.
      fields: z
        .object({ platforms: z.array(z.string()).default([]), targets: z.array(z.string().min(1)).min(1) })
        .transform(({ platforms, targets }) => resolveScope(platforms, targets)),
      exit: (fields) =>
        (Array.isArray(fields.targets) && fields.targets.length > 0) ||
        'No target could be normalised to a URL or ID this host can act on',
      exitLabel: 'at least one normalised target',
      onFailure: {
        action: 'manual_review',
        queue: 'unresolved-targets',
        message:
          'None of those targets could be resolved; they went to the manual-review queue. ' +
          'Please list post URLs or IDs like x:1790001 or reddit:t3_abc123.',
      },
    },
    {
      name: 'auth',
      prompt: 'Please authorize access using the minimum required scope and short-lived credentials.',
      fields: z.discriminatedUnion('auth_mode', [
        z.object({ auth_mode: z.literal('none'), consent_ack: z.literal(true) }),
        z.object({
          auth_mode: z.enum(['oauth', 'token']),
          credential_ref: z.string().regex(/^vault:\/\/\S+$/),
          consent_ack: z.literal(true),
          check: CredentialCheck,
        }),
        z.object({
          auth_mode: z.literal('session'),
          session_proof: z.string().min(1),
          consent_ack: z.literal(true),
          check: CredentialCheck,
        }),
      ]),
      exit: (fields, collected) => checkAuth(fields, collected),
      exitLabel: 'valid short-lived auth of minimum scope, or none where allowed',
      onFailure: {
        action: 'retry',
        message:
          'Please re-authorize: send a fresh short-lived credential with only the scope this action needs. ' +
          'Nothing runs without it, and nothing falls back to another credential.',
      },
    },
    {
      name: 'evidence',
      prompt: 'Provide evidence and explain why each target is in scope.',
      // One justification per target of the scope: its own evidence references and statement.
      fields: z.object({
        evidence_refs: z.array(EvidenceRef).min(1),
        justifications: z.record(
          z.string(),
          z.object({ evidence_refs: z.array(EvidenceRef).min(1), statement: z.string().trim().min(1) }),
        ),
        user_statement_authenticity_ack: z.literal(true),
      }),
      exit: (fields, collected) => checkJustifications(fields, collected),
      exitLabel: 'evidence package complete, each target justified',
      onFailure: {
        action: 'retry',
        message:
          'The evidence package is incomplete. Please add what is missing: for each target its evidence ' +
          'references (ev…) and a statement of why it is in scope, and your confirmation that it is ' +
          'authentic. Nothing is filled in for you.',
      },
    },
    {
      name: 'risk-confirm',
      prompt: 'This may be high-impact. Confirm #1 (YES).',
      parts: [
        { prompt: 'This may be high-impact. Confirm #1 (YES).', fields: z.object({ confirm1: exactYes }) },
        { prompt: 'Please reconfirm #2 (YES).', fields: z.object({ confirm2: exactYes }) },
        { prompt: 'Final confirmation #3 (YES).', fields: z.object({ confirm3: exactYes }) },
      ],
      exitLabel: 'three exact YES',
      onFailure: {
        action: 'back',
        to: 'evidence',
        message: 'Confirmation mismatch: execution is blocked and the session goes back to review.',
      },
    },
    {
      name: 'export-decision',
      prompt: 'Before irreversible delete actions, do you want to export records first? (yes/no/ask)',
      fields: z.discriminatedUnion('export_before_delete', [
        z.object({ export_before_delete: z.enum(['yes', 'no']) }),
        z.object({ export_before_delete: z.literal('ask'), export_answer: z.enum(['yes', 'no']) }),
      ]),
      exitLabel: 'explicit export choice',
      onFailure: {
        action: 'block',
        message: 'An explicit export answer is required before anything is deleted: yes or no?',
      },
    },
    {
      name: 'execute',
      prompt: 'Ready to execute now under manual mode. Proceed?',
      parts: [
        {
          prompt: 'Ready to execute now under manual mode. Proceed?',
          fields: z.object({
            manual_trigger: z.literal(true),
            execution_plan_ref: z.string().regex(/^plan_/),
          }),
        },
        {
          prompt: 'Executing under manual mode…',
          fields: z.object({
            adapter_status: z.enum(['success', 'partial', 'failed']),
            attempt: z.number().int().min(1),
            completed: z.array(z.string()),
            errors: z.array(PlatformError),
            fallback: z.literal('manual').optional(),
          }),
        },
      ],
      exit: (fields) =>
        fields.adapter_status === 'success' ||
        fields.fallback === 'manual' ||
        `The adapter returned ${String(fields.adapter_status)}`,
      exitLabel: 'success, or the rest handed to the manual path',
      onFailure: executeFailure,
      onFailureLabel: 'retry; manual queue after 3 runs',
    },
    {
      name: 'notify',
      prompt: 'How should I notify results? (none/telegram/email/signal)',
      fields: z.object({ notify_mode: z.enum(NOTIFY_MODES) }),
      exitLabel: 'notification branch resolved',
      onFailure: {
        action: 'default',
        value: { notify_mode: 'none' },
        message: 'That notification mode is not supported: defaulting to none, so no notification is sent.',
      },
    },
    {
      name: 'close',
      prompt: 'Session complete. Do you want an audit export and follow-up reminder?',
      parts: [
        {
          prompt: 'Session complete. Do you want an audit export and follow-up reminder?',
          fields: z.object({
            close_ack: z.literal(true),
            audit_export: z.boolean(),
            followup_preference: z.string().min(1).optional(),
          }),
        },
        {
          prompt: 'Saving the audit summary…',
          fields: z.object({ audit_saved: z.literal(true), audit_ref: z.string().min(1) }),
        },
      ],
      exitLabel: 'audit summary persisted',
      onFailure: {
        action: 'retry',
        mark: 'close_pending',
        message: 'Saving the audit summary failed: the session is close_pending and the save is retried.',
      },
    },
  ],
});

function isSpecific(summary: string): boolean {
  return !VAGUE.test(summary) && words(summary) >= 4;
}

type Fields = { readonly [field: string]: unknown };

function checkAuth(fields: Fields, collected: { readonly [step: string]: Fields }): true | string {
  const platforms = (collected['platform-scope']?.platforms ?? []) as readonly string[];
  if (fields.auth_mode === 'none') {
    const needing = platforms.filter((name) => PLATFORMS[platformNamed(name) ?? 'web'].requiresAuth);
    return needing.length === 0 || `${needing.join(', ')} requires authorization: "none" is not accepted`;
  }
  const check = fields.check as z.infer<typeof CredentialCheck>; // the schema above checked it
  if (check.status !== 'valid') return `The credential is ${check.status}`;
  if (check.expires_in_ms === null || check.expires_in_ms > MAX_CREDENTIAL_TTL_MS) {
    return 'The credential is not short-lived (at most one hour)';
  }
  const goal = collected.goal?.goal_type as GoalType | undefined;
  const needed = goal === undefined ? undefined : ACTIONS[goal].scope;
  const extra = check.scopes.filter((scope) => scope !== needed);
  if (needed !== undefined && !check.scopes.includes(needed))
    return `The credential lacks the scope ${needed}`;
  return extra.length === 0 || `The credential has more than the minimum scope (${extra.join(', ')})`;
}

function executeFailure(failure: StepFailure): FailurePolicy<CleanupStep> {
  const submitted = (failure.submitted ?? {}) as Fields;
  if (!('adapter_status' in submitted)) {
    return {
      action: 'retry',
      message:
        'Nothing was executed. Reply "proceed" when you are ready: execution runs only on your trigger.',
    };
  }
  if (Number(submitted.attempt) >= MAX_EXECUTE_ATTEMPTS) {
    return {
      action: 'manual_review',
      queue: 'manual-execution',
      message: `The adapter failed ${MAX_EXECUTE_ATTEMPTS} times: recorded for manual execution. Reply "manual" to hand the rest over.`,
    };
  }
  return {
    action: 'retry',
    message:
      'Not every target was done (the errors are recorded). Reply "retry" to run the rest again, ' +
      'or "manual" to hand them to the manual-execution queue.',
  };
}
