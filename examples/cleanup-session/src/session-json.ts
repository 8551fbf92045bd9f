// The host's persisted record of a session, and what it shows outside: the document's session JSON
// and the audit summary. Both outward forms are redacted; only the record holds credential references.
import type { JsonValue } from '@parley/core';
import type { FlowSessionRecord, FlowSnapshot } from '@parley/fsm';
import { z } from 'zod';
import type { CleanupStep } from './flow.js';
import { REDACTED_CREDENTIAL, REDACTED_PROOF, redactJson } from './redact.js';
import type { Reminder } from './reminder.js';
import type { Fields } from './replies.js';

/** The execution plan shown before the manual trigger. */
export interface ExecutionPlan {
  readonly id: string;
  readonly action: string;
  readonly targets: readonly string[];
  readonly exportFirst: boolean;
}

/** Where execution stands: what is done, what is left, whether records were exported. */
export interface ExecutionState {
  readonly attempts: number;
  readonly exported: boolean;
  readonly completed: readonly string[];
  readonly errors: readonly { target?: string; code: string; message: string; retryable: boolean }[];
}

/** One thing the host did, for the audit trail (never a credential). */
export interface HostEvent {
  readonly at: number;
  readonly kind: string;
  readonly detail: string;
}

/** The session as the host reads it: the flow, the draft of a half-answered step, the host's data. */
export interface SessionRecord {
  readonly session_id: string;
  readonly flow: FlowSnapshot<CleanupStep>;
  /** The last failed answer of a slot-filling step. */
  readonly draft: { readonly step: CleanupStep; readonly fields: Fields } | null;
  readonly plan: ExecutionPlan | null;
  readonly execution: ExecutionState | null;
  readonly events: readonly HostEvent[];
  readonly reminder?: Reminder | null;
}

/** The host's own data in the stored flow session record (`data`). */
export interface HostData {
  readonly plan: ExecutionPlan | null;
  readonly execution: ExecutionState | null;
  readonly events: readonly HostEvent[];
  /** The follow-up reminder scheduled at close (absent in records written before reminders). */
  readonly reminder?: Reminder | null;
}

/** The host's view of the stored flow session record (`cleanup:session:<id>`). */
export function toSessionRecord(stored: FlowSessionRecord<CleanupStep, unknown, HostData>): SessionRecord {
  const { draft } = stored;
  return {
    session_id: stored.id,
    flow: stored.flow,
    draft: draft === null ? null : { step: draft.step, fields: draft.fields },
    ...stored.data,
  };
}

const Targets = z.array(z.string());

/** The document's session JSON (cleanup-flow.txt), plus the execution and close sections it implies. */
export const SessionJsonSchema = z.strictObject({
  session_id: z.string().regex(/^sess_/),
  state: z.string(),
  goal: z.strictObject({ goal_type: z.string(), intent_summary: z.string() }).optional(),
  scope: z
    .strictObject({
      platforms: z.array(z.string()),
      targets: Targets,
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
    .strictObject({ evidence_refs: z.array(z.string()), user_statement_authenticity_ack: z.literal(true) })
    .optional(),
  risk_confirm: z
    .strictObject({
      confirm1: z.literal('YES').optional(),
      confirm2: z.literal('YES').optional(),
      confirm3: z.literal('YES').optional(),
    })
    .optional(),
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
      completed: Targets,
      manual: Targets,
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
export function toSessionJson(record: SessionRecord): SessionJson {
  const { flow } = record;
  const f = flow.fields as Record<string, Record<string, JsonValue> | undefined>;
  const pick = <K extends string>(
    step: string,
    keys: readonly K[],
  ): Partial<Record<K, JsonValue>> | undefined => {
    const fields = f[step];
    if (fields === undefined) return undefined;
    return Object.fromEntries(
      keys.filter((k) => fields[k] !== undefined).map((k) => [k, fields[k]]),
    ) as Partial<Record<K, JsonValue>>; // keys picked from the record above
  };
  const auth = f.auth;
  const execute = f.execute;
  const done = new Set(record.execution?.completed ?? []);
  const manual =
    execute?.fallback === 'manual' && record.plan !== null
      ? record.plan.targets.filter((t) => !done.has(t))
      : [];
  const json = {
    session_id: record.session_id,
    state: flow.mark === 'close_pending' ? 'close_pending' : flow.state === 'done' ? 'closed' : flow.state,
    goal: pick('goal', ['goal_type', 'intent_summary']),
    scope: pick('platform-scope', ['platforms', 'targets', 'unresolved']),
    auth:
      auth === undefined
        ? undefined
        : {
            auth_mode: auth.auth_mode,
            ...(auth.credential_ref === undefined ? {} : { credential_ref: REDACTED_CREDENTIAL }),
            ...(auth.session_proof === undefined ? {} : { session_proof: REDACTED_PROOF }),
          },
    evidence: pick('evidence', ['evidence_refs', 'user_statement_authenticity_ack']),
    risk_confirm: pick('risk-confirm', ['confirm1', 'confirm2', 'confirm3']),
    export: pick('export-decision', ['export_before_delete', 'export_answer']),
    execution:
      record.plan === null
        ? undefined
        : {
            plan_ref: record.plan.id,
            status: (execute?.adapter_status as string | undefined) ?? 'pending',
            completed: [...(record.execution?.completed ?? [])],
            manual,
          },
    notify: pick('notify', ['notify_mode']),
    close:
      f.close === undefined
        ? undefined
        : {
            close_ack: true,
            audit_export: f.close.audit_export === true,
            followup_preference: String(f.close.followup_preference ?? 'none'),
            ...(f.close.audit_ref === undefined ? {} : { audit_ref: String(f.close.audit_ref) }),
          },
  };
  // Absent sections are left out rather than null; the result is checked against the schema.
  const present = Object.fromEntries(Object.entries(json).filter(([, value]) => value !== undefined));
  return SessionJsonSchema.parse(redactJson(present as JsonValue));
}

/** The audit summary persisted at close: the session JSON, every transition, notice, review and host event. */
export function toAuditSummary(record: SessionRecord, at: number): JsonValue {
  const { flow } = record;
  const summary = {
    kind: 'cleanup-audit',
    generated_at: new Date(at).toISOString(),
    session: toSessionJson(record),
    transitions: flow.history.map((h) => ({
      at: new Date(h.at).toISOString(),
      from: h.from,
      to: h.to,
      event: h.event,
    })),
    failures: flow.attempts,
    notices: flow.notices.map((n) => ({ ...n, at: new Date(n.at).toISOString() })),
    reviews: flow.reviews.map((r) => ({ ...r, at: new Date(r.at).toISOString() })),
    events: record.events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
  };
  return redactJson(JSON.parse(JSON.stringify(summary)) as JsonValue); // plain data built above
}
