// The cleanup flow of the seed (shared/seeds/cleanup-flow.txt), as one defineFlow: nine steps, their
// required fields, exit conditions and failure handling. Nothing outside this definition decides.
import { z } from 'zod';
import { defineFlow } from '../src/index.js';

const yes = (field: string) => z.object({ [field]: z.literal('YES') });

export const cleanupFlow = defineFlow({
  id: 'cleanup',
  version: 1,
  steps: [
    {
      name: 'goal',
      prompt: 'What outcome do you want to achieve in this cleanup session?',
      fields: z.object({
        goal_type: z.enum(['delete', 'delist', 'complaint', 'reminder', 'dmca_takedown']),
        intent_summary: z.string().min(1),
      }),
      exit: (fields) =>
        String(fields.intent_summary).trim().split(/\s+/).length >= 3 || 'The goal is too vague',
      exitLabel: 'specific and actionable',
      onFailure: {
        action: 'retry',
        message:
          'Please narrow it down, e.g. "delete my reposted photos on X" or "file a DMCA takedown for 3 URLs".',
      },
    },
    {
      name: 'platform-scope',
      prompt: 'Which platforms/targets are in scope? Please list URLs, IDs, or channels.',
      fields: z.object({
        platforms: z.array(z.string().min(1)).min(1),
        targets: z.array(z.string().min(1)).min(1),
      }),
      exit: (fields) =>
        (fields.targets as string[]).some((t) => /^https?:\/\/\S+$/.test(t) || /^[\w-]+:[\w-]+$/.test(t)) ||
        'No target could be normalized to a URL or ID',
      exitLabel: 'at least one normalized target',
      onFailure: {
        action: 'manual_review',
        queue: 'unresolved-targets',
        message:
          'Some targets could not be resolved; they were sent to manual review. Please list URLs or IDs.',
      },
    },
    {
      name: 'auth',
      prompt: 'Please authorize access using the minimum required scope and short-lived credentials.',
      fields: z.discriminatedUnion('auth_mode', [
        z.object({ auth_mode: z.literal('none'), consent_ack: z.literal(true) }),
        z
          .object({
            auth_mode: z.enum(['oauth', 'token', 'session']),
            credential_ref: z.string().min(1).optional(),
            session_proof: z.string().min(1).optional(),
            consent_ack: z.literal(true),
          })
          .refine((v) => v.credential_ref !== undefined || v.session_proof !== undefined, {
            message: 'credential_ref or session_proof is required',
            path: ['credential_ref'],
          }),
      ]),
      onFailure: {
        action: 'retry',
        message: 'Authorization is missing or expired: please re-authorize (no silent fallback).',
      },
    },
    {
      name: 'evidence',
      prompt: 'Provide evidence and explain why each target is in scope.',
      fields: z.object({
        evidence_refs: z.array(z.string().min(1)).min(1),
        user_statement_authenticity_ack: z.literal(true),
      }),
      onFailure: {
        action: 'retry',
        message: 'Evidence is missing: please add it (nothing is filled in for you).',
      },
    },
    {
      name: 'risk-confirm',
      prompt: 'This may be high-impact. Confirm three times (YES).',
      parts: [
        { prompt: 'This may be high-impact. Confirm #1 (YES).', fields: yes('confirm1') },
        { prompt: 'Please reconfirm #2 (YES).', fields: yes('confirm2') },
        { prompt: 'Final confirmation #3 (YES).', fields: yes('confirm3') },
      ],
      onFailure: {
        action: 'back',
        to: 'evidence',
        message: 'Confirmation mismatch: execution is blocked; back to review.',
      },
    },
    {
      name: 'export-decision',
      prompt: 'Before irreversible delete actions, do you want to export records first? (yes/no/ask)',
      fields: z.discriminatedUnion('export_before_delete', [
        z.object({ export_before_delete: z.enum(['yes', 'no']) }),
        z.object({ export_before_delete: z.literal('ask'), export_answer: z.enum(['yes', 'no']) }),
      ]),
      onFailure: {
        action: 'block',
        message: 'An explicit export choice is required before anything is deleted.',
      },
    },
    {
      name: 'execute',
      prompt: 'Ready to execute now under manual mode. Proceed?',
      parts: [
        {
          prompt: 'Ready to execute now under manual mode. Proceed?',
          fields: z.object({ manual_trigger: z.literal(true), execution_plan_ref: z.string().min(1) }),
        },
        {
          prompt: 'Executing… report the adapter result.',
          fields: z.object({
            adapter_status: z.enum(['success', 'partial', 'failed']),
            error: z.object({ code: z.string(), message: z.string() }).optional(),
          }),
        },
      ],
      exit: (fields) => fields.adapter_status !== 'failed' || 'The adapter reported a failure',
      exitLabel: 'adapter returned success or partial',
      onFailureLabel: 'retry once, then manual review (manual-execution)',
      onFailure: (failure) =>
        failure.attempts < 2
          ? { action: 'retry', message: 'Execution failed (error captured). Retry?' }
          : {
              action: 'manual_review',
              queue: 'manual-execution',
              message: 'Execution failed again: handed to manual fallback.',
            },
    },
    {
      name: 'notify',
      prompt: 'How should I notify results? (none/telegram/email/signal)',
      fields: z.object({ notify_mode: z.enum(['none', 'telegram', 'email', 'signal']) }),
      onFailure: {
        action: 'default',
        value: { notify_mode: 'none' },
        message: 'That notification mode is not supported: no notification will be sent.',
      },
    },
    {
      name: 'close',
      prompt: 'Session complete. Do you want an audit export and follow-up reminder?',
      parts: [
        {
          prompt: 'Session complete. Do you want an audit export and follow-up reminder?',
          fields: z.object({ close_ack: z.literal(true), followup_preference: z.string().optional() }),
        },
        { prompt: 'Saving the audit summary…', fields: z.object({ audit_saved: z.literal(true) }) },
      ],
      onFailure: {
        action: 'retry',
        mark: 'close_pending',
        message: 'Saving the audit summary failed: close_pending, retrying.',
      },
    },
  ],
});

/** The answers of the seed's session JSON, plus the required fields its projection leaves out. */
export const seedAnswers = {
  goal: { goal_type: 'dmca_takedown', intent_summary: 'Remove infringing reposts' },
  'platform-scope': { platforms: ['x'], targets: ['https://x.com/.../'] },
  auth: { auth_mode: 'oauth', credential_ref: 'vault://...', consent_ack: true },
  evidence: { evidence_refs: ['ev1'], user_statement_authenticity_ack: true },
  'risk-confirm': [{ confirm1: 'YES' }, { confirm2: 'YES' }, { confirm3: 'YES' }],
  'export-decision': { export_before_delete: 'ask', export_answer: 'yes' },
} as const;
