// The side effects the flow allows, each performed only once its step says so: the execution plan,
// the adapter run under the manual trigger (export first when chosen), the notification, and the
// follow-up reminder asked for at close.
import type { PlatformError, PlatformResult } from '@parley/testing';
import type { CredentialVault, Notification, Notifier, PlatformAdapter } from './adapters.js';
import { ACTIONS, type GoalType } from './flow.js';
import { redactText } from './redact.js';
import type { Fields } from './replies.js';
import type { ExecutionPlan, ExecutionState, HostData } from './session-json.js';

type Collected = { readonly [step: string]: Fields | undefined };

/** The plan shown before the manual trigger: the goal's action on the scoped targets. */
export function createPlan(id: string, fields: Collected): ExecutionPlan {
  const goal = fields.goal?.goal_type as GoalType; // the goal step is complete before export-decision
  const scope = fields['platform-scope']?.targets as string[]; // likewise
  const choice = fields['export-decision'];
  const exportFirst = choice?.export_before_delete === 'yes' || choice?.export_answer === 'yes';
  return { id, action: ACTIONS[goal].action, targets: [...scope], exportFirst };
}

export function describePlan(plan: ExecutionPlan, fields: Collected): string {
  const platforms = (fields['platform-scope']?.platforms as string[] | undefined) ?? [];
  return (
    `Plan ${plan.id}: ${plan.action} ${plan.targets.length} target(s) on ${platforms.join(', ')}` +
    `${plan.exportFirst ? ', exporting their records first' : ', no export'}. Nothing runs until you say so.`
  );
}

/** The targets of the plan that are not done yet. */
export function remainingTargets(plan: ExecutionPlan, execution: ExecutionState | null): string[] {
  const done = new Set(execution?.completed ?? []);
  return plan.targets.filter((target) => !done.has(target));
}

/**
 * Runs the plan's action on `targets` through the adapter, exporting the records first when the
 * plan says so and they are not exported yet. A failed export stops the run before anything is
 * deleted; an adapter that throws becomes a structured `adapter_error`. Never throws.
 */
export async function runExecution(
  adapter: PlatformAdapter,
  plan: ExecutionPlan,
  targets: readonly string[],
  previous: ExecutionState | null,
  credential: Readonly<Record<string, string>>,
  note: (text: string) => void,
): Promise<ExecutionState & { readonly status: PlatformResult['status'] }> {
  const params = { plan: plan.id, ...credential };
  const wholeCall = (code: string, message: string): PlatformError => ({ code, message, retryable: true });
  let exported = previous?.exported ?? false;
  let result: PlatformResult;
  try {
    if (plan.exportFirst && !exported) {
      note(`→ platform export: records of ${plan.targets.length} target(s)`);
      const exportResult = await adapter.execute({ action: 'export', targets: plan.targets, params });
      exported = exportResult.status === 'success';
      note(`← export ${exportResult.status}`);
    }
    if (plan.exportFirst && !exported) {
      const error = wholeCall('export_failed', 'The records could not be exported; nothing was deleted');
      result = { status: 'failed', completed: [], errors: [error] };
    } else {
      note(`→ platform ${plan.action}: ${targets.length} target(s)`);
      result = await adapter.execute({ action: plan.action, targets, params });
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    result = { status: 'failed', completed: [], errors: [wholeCall('adapter_error', redactText(message))] };
  }
  const completed = [...new Set([...(previous?.completed ?? []), ...result.completed])];
  const left = plan.targets.filter((target) => !completed.includes(target));
  const status = left.length === 0 ? 'success' : completed.length === 0 ? 'failed' : 'partial';
  const errors = result.errors.map((e) => ({ ...e, message: redactText(e.message) }));
  const failed = errors.map((e) => `${e.code}${e.target === undefined ? '' : ` (${e.target})`}`);
  note(
    `← ${plan.action} ${result.status}: ${completed.length}/${plan.targets.length} done` +
      (failed.length === 0 ? '' : `; ${failed.join(', ')}`),
  );
  return { status, attempts: (previous?.attempts ?? 0) + 1, exported, completed, errors };
}

/** The execute step's answer that hands what is left to the manual path ("manual" after a failure). */
export function manualFallback({ attempts, completed, errors }: ExecutionState): Fields {
  const adapter_status = completed.length === 0 ? 'failed' : 'partial';
  return {
    adapter_status,
    attempt: attempts,
    completed: [...completed],
    errors: [...errors],
    fallback: 'manual',
  };
}

/** Sends the result summary on the chosen channel; `none` sends nothing. */
export async function notifyResult(
  notifier: Notifier,
  mode: string,
  sessionId: string,
  data: HostData,
  manual: readonly string[],
): Promise<string | undefined> {
  if (mode === 'none' || data.plan === null) return undefined;
  const done = data.execution?.completed.length ?? 0;
  const text = redactText(
    `Cleanup ${sessionId}: ${data.plan.action} done for ${done} of ${data.plan.targets.length} target(s)` +
      (manual.length === 0 ? '.' : `; ${manual.length} handed to manual execution.`),
  );
  await notifier.send({ mode, text });
  return text;
}

/**
 * Asks the vault about the credential a reply names and returns what it says as `check`, for the
 * auth step's exit condition to judge. The reference itself is never written to the transcript.
 */
export async function checkCredential(
  vault: CredentialVault,
  fields: Fields,
  note: (text: string) => void,
): Promise<Fields | undefined> {
  const ref = typeof fields.credential_ref === 'string' ? fields.credential_ref : fields.session_proof;
  if (typeof ref !== 'string' || fields.auth_mode === 'none') return undefined;
  const check = await vault.check(ref);
  const minutes = check.expires_in_ms === null ? '?' : Math.round(check.expires_in_ms / 60_000);
  note(`credential check: ${check.status}, ${minutes} min left, scopes ${check.scopes.join(' ') || '—'}`);
  return { check: { ...check } };
}

/** `remind_in_7d` → 7 days in ms; anything else → undefined (no reminder). */
export function reminderDelayMs(preference: unknown): number | undefined {
  const days = typeof preference === 'string' ? /^remind_in_(\d+)d$/.exec(preference)?.[1] : undefined;
  return days === undefined ? undefined : Number(days) * 24 * 60 * 60_000;
}

/**
 * The follow-up reminder the close step's `followup_preference` asks for: its delay and what to send,
 * on the session's notification channel (`chat` when that was `none`).
 */
export function planReminder(
  sessionId: string,
  fields: Collected,
  data: HostData,
): { readonly delayMs: number; readonly reminder: Notification } | undefined {
  const delayMs = reminderDelayMs(fields.close?.followup_preference);
  if (delayMs === undefined || data.plan === null) return undefined;
  const notify = String(fields.notify?.notify_mode ?? 'none');
  const { action, targets } = data.plan;
  const done = data.execution?.completed.length ?? 0;
  const text = `Follow-up on cleanup ${sessionId}: ${action} done for ${done} of ${targets.length} target(s). Check that the content stays down.`;
  return { delayMs, reminder: { mode: notify === 'none' ? 'chat' : notify, text: redactText(text) } };
}
