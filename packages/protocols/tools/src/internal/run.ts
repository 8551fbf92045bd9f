import type { AnyToolDefinition, ToolExecuteContext } from '../define.js';
import { createRejection, isToolRejection } from '../rejection.js';
import { ToolsError } from '../errors.js';
import type { ToolRunOptions } from '../gate-types.js';
import type { ExecutedToolCall, ToolCallRecord } from '../types.js';
import { askConfirmation, type Confirmation } from './confirm.js';
import { type ConsentTarget, effectFact, executorRan, recordConsent } from './consent.js';
import { baseOfParts, type Judging, type Parts, refusedParts } from './judging.js';
import { refuse } from './refuse.js';
import type { CheckedCall, Runtime, Settled } from './runtime.js';
import { isPromise } from './promise.js';

// The end of a call's judgement: its confirmation, the claim in the store, the executor, and what
// the executor's answer makes of the call.

/** Asks for the confirmation the tool needs (if any), then runs the call. */
export function confirmThenRun<TContext>(
  j: Judging<TContext>,
  tool: AnyToolDefinition,
  value: unknown,
  parts: Parts,
): Settled | Promise<Settled> {
  const { rt, call, run } = j;
  const asked = askConfirmation(rt, tool, value, call, run);
  if (isPromise(asked)) return asked.then((confirmed) => afterConfirmation(j, tool, value, parts, confirmed));
  return afterConfirmation(j, tool, value, parts, asked);
}

function afterConfirmation<TContext>(
  j: Judging<TContext>,
  tool: AnyToolDefinition,
  value: unknown,
  parts: Parts,
  confirmed: Confirmation,
): Settled | Promise<Settled> {
  const { rt, call, run } = j;
  const turn = run.turn;
  if (confirmed.code !== undefined) {
    return refuse(rt, turn, baseOfParts(parts), confirmed.code, confirmed.text, {
      repair: parts.done,
      ran: parts.ran,
      confirmationId: confirmed.id,
    });
  }
  // After a confirmation, the executor gets a fresh copy of exactly the arguments confirmed.
  const runs = confirmed.bound === undefined ? value : JSON.parse(confirmed.bound);
  const withParts: Parts = confirmed.id === undefined ? parts : { ...parts, confirmationId: confirmed.id };
  const ran =
    rt.persist === undefined
      ? execute(rt, tool, call, run, runs, withParts)
      : persisted(rt, rt.persist, tool, call, run, runs, withParts);
  return confirmed.consent === undefined
    ? ran
    : recordEffect(rt, confirmed.consent, ran, { turn, id: call.id, tool: tool.name });
}

/** Appends the effect of a call whose executor ran; it already ran, so a failed append is only reported. */
async function recordEffect<TContext>(
  rt: Runtime<TContext>,
  target: ConsentTarget,
  ran: Settled | Promise<Settled>,
  about: { readonly turn: number; readonly id: string; readonly tool: string },
): Promise<Settled> {
  const settled = await ran;
  if (executorRan(settled))
    await recordConsent(rt, target, [effectFact(target.confirmationId, settled)], about);
  return settled;
}

/** With a store: claims the call, runs it, and records its outcome. */
async function persisted<TContext>(
  rt: Runtime<TContext>,
  persist: NonNullable<Runtime<TContext>['persist']>,
  tool: AnyToolDefinition,
  call: CheckedCall,
  run: ToolRunOptions<TContext>,
  runs: unknown,
  parts: Parts,
): Promise<Settled> {
  const claimed = { ...baseOfParts(parts), content: call.content };
  const answered = await persist.claim(run.turn, claimed);
  if (answered !== undefined) return answered;
  const running = execute(rt, tool, call, run, runs, parts);
  const settled = running instanceof Promise ? await running : running;
  await persist.release(run.turn, claimed, settled);
  return settled;
}

/** The `reject` every executor is given (one function for all calls: it depends on none). */
const reject: ToolExecuteContext<unknown, string>['reject'] = (reason, message, options) =>
  createRejection(reason, message, options?.disableUntil);

/** Runs the executor of a call every check allowed; a promise only when the executor returns one. */
function execute<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  call: CheckedCall,
  run: ToolRunOptions<TContext>,
  value: unknown,
  parts: Parts,
): Settled | Promise<Settled> {
  const { turn } = run;
  let result: unknown;
  try {
    result = tool.execute(value as never, {
      call: { id: call.id, reason: call.reason, tool: tool.name },
      context: run.context as never,
      turn,
      signal: run.signal,
      reject,
    });
  } catch (error) {
    return executorFailed(rt, tool, call, turn, parts, error);
  }
  if (!(result instanceof Promise)) return outcome(rt, tool, call, turn, parts, result);
  return result.then(
    (settled: unknown) => outcome(rt, tool, call, turn, parts, settled),
    (error: unknown) => executorFailed(rt, tool, call, turn, parts, error),
  );
}

function executorFailed<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  call: CheckedCall,
  turn: number,
  parts: Parts,
  error: unknown,
): Settled {
  rt.emit('error', { turn, id: call.id, tool: tool.name, stage: 'execute', error });
  return refuse(
    rt,
    turn,
    baseOfParts(parts),
    'executor_error',
    `The tool "${tool.name}" failed while running`,
    refusedParts(parts),
  );
}

/** What the executor's answer makes of the call: executed, or refused with a declared reason. */
function outcome<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  call: CheckedCall,
  turn: number,
  parts: Parts,
  result: unknown,
): Settled {
  const { requested, ran, done, confirmationId } = parts;
  if (isToolRejection(result)) {
    if (!tool.reasons.includes(result.reason)) {
      const error = new ToolsError(
        'invalid_argument',
        `The tool "${tool.name}" refused with the undeclared reason "${result.reason}"`,
        { details: { tool: tool.name, reason: result.reason } },
      );
      return executorFailed(rt, tool, call, turn, parts, error);
    }
    if (result.disableUntil !== undefined) {
      rt.disable(tool.name, result.disableUntil, result.message ?? result.reason);
    }
    return refuse(
      rt,
      turn,
      baseOfParts(parts),
      'tool_refused',
      result.message ?? `The tool "${tool.name}" refused: ${result.reason}`,
      {
        ...refusedParts(parts),
        toolReason: result.reason,
        until: result.disableUntil,
      },
    );
  }
  const executed: ExecutedToolCall = {
    id: call.id,
    tool: tool.name,
    args: ran.args,
    result,
    replayed: false,
  };
  // written out (no spreads of optional parts): the common record is one literal
  const record: ToolCallRecord =
    done === undefined && confirmationId === undefined
      ? { id: call.id, turn, requested, ran, outcome: 'executed', replayed: false }
      : {
          id: call.id,
          turn,
          requested,
          ran,
          ...(done === undefined ? {} : { repair: done }),
          ...(confirmationId === undefined ? {} : { confirmationId }),
          outcome: 'executed',
          replayed: false,
        };
  return { record, executed, ran: true };
}
