// The host's data in the stored flow session, and what it shows outside: the document's session JSON
// and the audit summary. Both outward forms are redacted; only the stored record holds credential
// references, because execution needs them.
import type { JsonValue } from '@parley/core';
import { toFlowAudit } from '@parley/fsm';
import type { FlowSessionRecord } from '@parley/chat-flow';
import { z } from 'zod';
import { evidencePerTarget, type Justification } from './evidence.js';
import type { CleanupStep } from './flow.js';
import { REDACTED_CREDENTIAL, REDACTED_PROOF, redactJson } from './redact.js';

/** The execution plan shown before the manual trigger. */
export interface ExecutionPlan {
  readonly id: string;
  readonly action: string;
  readonly targets: readonly string[];
  readonly exportFirst: boolean;
}

/** Where execution stands: what is done, whether records were exported, the last errors. */
export interface ExecutionState {
  readonly attempts: number;
  readonly exported: boolean;
  readonly completed: readonly string[];
  readonly errors: readonly { target?: string; code: string; message: string; retryable: boolean }[];
}

/** The host's own data in the stored flow session record (`data`); events are the audit trail. */
export interface HostData {
  readonly plan: ExecutionPlan | null;
  readonly execution: ExecutionState | null;
  readonly events: readonly { readonly at: number; readonly kind: string; readonly detail: string }[];
}

/** The stored record of a cleanup session (`cleanup:session:<id>`), written by @parley/fsm. */
export type CleanupRecord = FlowSessionRecord<CleanupStep, unknown, HostData>;

const Strings = z.array(z.string());
const Yes = z.literal('YES').optional();

/** The document's session JSON (cleanup-flow.txt), plus the execution and close sections it implies. */
export const SessionJsonSchema = z.strictObject({
  session_id: z.string().regex(/^sess_/),
  state: z.string(),
  goal: z.strictObject({ goal_type: z.string(), intent_summary: z.string() }).optional(),
  scope: z
    .strictObject({
      platforms: Strings,
      targets: Strings,
      unresolved: z.array(z.strictObject({ input: z.string(), reason: z.string() })),
    })
    .optional(),
  auth: z
    .strictObject({
      auth_mode: z.string(),
      credential_ref: z.literal(REDACTED_CREDENTIAL).optional(),
      session_proof: z.literal(REDACTED_PROOF).optional(),
    })
    .optional(),
  evidence: z
    .strictObject({
      evidence_refs: Strings,
      /** The document's "why each target is in scope": one entry per target of the scope. */
      per_target: z.array(
        z.strictObject({ target: z.string(), evidence_refs: Strings, statement: z.string() }),
      ),
      user_statement_authenticity_ack: z.literal(true),
    })
    .optional(),
  risk_confirm: z.strictObject({ confirm1: Yes, confirm2: Yes, confirm3: Yes }).optional(),
  export: z
    .strictObject({
      export_before_delete: z.enum(['yes', 'no', 'ask']),
      export_answer: z.enum(['yes', 'no']).optional(),
    })
    .optional(),
  execution: z
    .strictObject({
      plan_ref: z.string(),
      status: z.enum(['pending', 'success', 'partial', 'failed']),
      completed: Strings,
      manual: Strings,
    })
    .optional(),
  notify: z.strictObject({ notify_mode: z.string() }).optional(),
  close: z
    .strictObject({
      close_ack: z.literal(true),
      audit_export: z.boolean(),
      followup_preference: z.string(),
      audit_ref: z.string().optional(),
    })
    .optional(),
});

export type SessionJson = z.infer<typeof SessionJsonSchema>;

/**
 * The session JSON of the document: `state` is the current step, `close_pending` while the audit save
 * is being retried, and `closed` when the flow is done. Credential references are redacted.
 */
export function toSessionJson(record: CleanupRecord): SessionJson {
  const { flow, data } = record;
  const f = flow.fields as Record<string, Record<string, JsonValue> | undefined>;
  const pick = (step: string, keys: readonly string[]) => {
    const fields = f[step];
    return (
      fields && Object.fromEntries(keys.filter((k) => fields[k] !== undefined).map((k) => [k, fields[k]]))
    );
  };
  const { auth, evidence, execute, close } = f;
  const done = new Set(data.execution?.completed ?? []);
  const json = {
    session_id: record.id,
    state: flow.mark === 'close_pending' ? 'close_pending' : flow.state === 'done' ? 'closed' : flow.state,
    goal: pick('goal', ['goal_type', 'intent_summary']),
    scope: pick('platform-scope', ['platforms', 'targets', 'unresolved']),
    auth: auth && {
      auth_mode: auth.auth_mode,
      ...(auth.credential_ref === undefined ? {} : { credential_ref: REDACTED_CREDENTIAL }),
      ...(auth.session_proof === undefined ? {} : { session_proof: REDACTED_PROOF }),
    },
    evidence: evidence && {
      evidence_refs: evidence.evidence_refs,
      per_target: evidencePerTarget(
        (f['platform-scope']?.targets ?? []) as string[],
        evidence.justifications as Record<string, Justification> | undefined,
      ),
      user_statement_authenticity_ack: evidence.user_statement_authenticity_ack,
    },
    risk_confirm: pick('risk-confirm', ['confirm1', 'confirm2', 'confirm3']),
    export: pick('export-decision', ['export_before_delete', 'export_answer']),
    execution:
      data.plan === null
        ? undefined
        : {
            plan_ref: data.plan.id,
            status: execute?.adapter_status ?? 'pending',
            completed: [...done],
            manual: execute?.fallback === 'manual' ? data.plan.targets.filter((t) => !done.has(t)) : [],
          },
    notify: pick('notify', ['notify_mode']),
    close: close && {
      close_ack: true,
      audit_export: close.audit_export === true,
      followup_preference: String(close.followup_preference ?? 'none'),
      ...(close.audit_ref === undefined ? {} : { audit_ref: String(close.audit_ref) }),
    },
  };
  // Absent sections are left out rather than null; the result is checked against the schema.
  const present = Object.fromEntries(Object.entries(json).filter(([, value]) => value !== undefined));
  return SessionJsonSchema.parse(redactJson(present as JsonValue));
}

/** The audit summary persisted at close: the session JSON, the flow's audit trail and the host events. */
export function toAuditSummary(record: CleanupRecord, at: number): JsonValue {
  const summary = {
    kind: 'cleanup-audit',
    generated_at: new Date(at).toISOString(),
    session: toSessionJson(record),
    ...toFlowAudit(record.flow),
    events: record.data.events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
  };
  return redactJson(JSON.parse(JSON.stringify(summary)) as JsonValue); // plain data built above
}
