// The side effects the flow allows, each performed only once its step says so: the execution plan,
// the adapter run under the manual trigger (export first when chosen), and the notification.
import { ACTIONS, type GoalType } from './flow.js';
import type {
  CredentialVault,
  Notifier,
  PlatformAdapter,
  PlatformError,
  PlatformResult,
} from './adapters.js';
import { redactText } from './redact.js';
import type { Fields } from './replies.js';
import type { ExecutionPlan, ExecutionState } from './session-json.js';

/** The plan shown before the manual trigger: the goal's action on the scoped targets. */
export function createPlan(
  id: string,
  fields: { readonly [step: string]: Fields | undefined },
): ExecutionPlan {
  const goal = fields.goal?.goal_type as GoalType; // the goal step is complete before export-decision
  const scope = fields['platform-scope']?.targets as string[]; // likewise
  const choice = fields['export-decision'];
  const exportFirst = choice?.export_before_delete === 'yes' || choice?.export_answer === 'yes';
  return { id, action: ACTIONS[goal].action, targets: [...scope], exportFirst };
}

export function describePlan(plan: ExecutionPlan, platforms: readonly string[]): string {
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
      result = {
        status: 'failed',
        completed: [],
        errors: [wholeCall('export_failed', 'The records could not be exported; nothing was deleted')],
      };
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
  note(
    `← ${plan.action} ${result.status}: ${completed.length}/${plan.targets.length} done` +
      (errors.length === 0
        ? ''
        : `; ${errors.map((e) => `${e.code}${e.target === undefined ? '' : ` (${e.target})`}`).join(', ')}`),
  );
  return { status, attempts: (previous?.attempts ?? 0) + 1, exported, completed, errors };
}

/** Sends the result summary on the chosen channel; `none` sends nothing. */
export async function notifyResult(
  notifier: Notifier,
  mode: string,
  sessionId: string,
  plan: ExecutionPlan,
  execution: ExecutionState | null,
  manual: readonly string[],
): Promise<string | undefined> {
  if (mode === 'none') return undefined;
  const done = execution?.completed.length ?? 0;
  const text = redactText(
    `Cleanup ${sessionId}: ${plan.action} done for ${done} of ${plan.targets.length} target(s)` +
      (manual.length === 0 ? '.' : `; ${manual.length} handed to manual execution.`),
  );
  await notifier.send({ mode, text });
  return text;
}

/**
 * Asks the vault about the credential a reply names and attaches what it says as `check`, for the
 * auth step's exit condition to judge. The reference itself is never written to the transcript.
 */
export async function checkCredential(
  vault: CredentialVault,
  fields: Fields,
  note: (text: string) => void,
): Promise<Fields> {
  const ref = typeof fields.credential_ref === 'string' ? fields.credential_ref : fields.session_proof;
  if (typeof ref !== 'string' || fields.auth_mode === 'none') return fields;
  const check = await vault.check(ref);
  const minutes = check.expires_in_ms === null ? '?' : Math.round(check.expires_in_ms / 60_000);
  note(`credential check: ${check.status}, ${minutes} min left, scopes ${check.scopes.join(' ') || '—'}`);
  return { ...fields, check: { ...check } };
}

/** The execute step's answer that hands what is left to the manual path ("manual" after a failure). */
export function manualFallback(execution: ExecutionState): Fields {
  const { attempts, completed, errors } = execution;
  const adapter_status = completed.length === 0 ? 'failed' : 'partial';
  return {
    adapter_status,
    attempt: attempts,
    completed: [...completed],
    errors: [...errors],
    fallback: 'manual',
  };
}

function wholeCall(code: string, message: string): PlatformError {
  return { code, message, retryable: true };
}
