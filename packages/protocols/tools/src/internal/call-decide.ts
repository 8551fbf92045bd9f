// Judging one call no other call with its turn and id is judging: from the store's answer, by
// reserving room to remember it, answering a repeated content, or judging and running it.
import type { ToolRunOptions } from '../gate-types.js';
import type { ToolGateLimits } from '../limits.js';
import type { ToolGateEvents } from '../types.js';
import { marked, replayAs } from './call-shape.js';
import { judgeCall } from './judge.js';
import type { CallMemory } from './memory.js';
import type { StoredLookup } from './remembered.js';
import { refuse } from './refuse.js';
import type { CallBase, CheckedCall, Runtime, Settled } from './runtime.js';
import type { StoredAnswers } from './stored.js';
import { isPromise } from './promise.js';

/** A call being judged; `ended` settles when it is done, made only when another call waits for it. */
export interface Inflight {
  ended: Promise<void> | undefined;
  release: (() => void) | undefined;
}

/** @internal What the call handler of one gate holds: what it judges with, and the calls in flight. */
export interface CallsState<TContext> {
  readonly answers: StoredAnswers<TContext>;
  readonly runtime: Runtime<TContext>;
  readonly memory: CallMemory;
  readonly limits: ToolGateLimits;
  readonly repeatedContent: 'run' | 'replay' | 'refuse';
  readonly events: {
    readonly emit: <K extends keyof ToolGateEvents & string>(event: K, payload: ToolGateEvents[K]) => void;
  };
  /**
   * Calls being judged that wait for something (or that another call waits for), by turn and id; a
   * later call with the same key waits for the first to end. A call judged in one synchronous pass
   * is only on `activeTurns` / `activeIds` (the calls whose synchronous part is running, innermost last):
   * it never touches the map, whose retired hash tables would keep its outcome in the old generation.
   */
  readonly inflight: Map<string, Inflight>;
  /** The turns and ids of the calls whose synchronous part is running, innermost last. */
  readonly activeTurns: number[];
  readonly activeIds: string[];
}

/** @internal With a store: answers from what it holds for the call, else judges it. */
export async function storedThenDecide<TContext>(
  state: CallsState<TContext>,
  call: CheckedCall,
  base: CallBase,
  run: ToolRunOptions<TContext>,
  batch: number,
): Promise<Settled> {
  const { answers } = state;
  let found: StoredLookup;
  try {
    found = await state.memory.stored(run.turn, base.id);
  } catch (error) {
    return answers.storeFailed(run.turn, base, error);
  }
  return answers.answerStored(run.turn, base, found) ?? decide(state, call, base, run, batch);
}

/** @internal Reserves room to remember the call, answers a repeated content, or judges and runs it. */
export function decide<TContext>(
  state: CallsState<TContext>,
  call: CheckedCall,
  base: CallBase,
  run: ToolRunOptions<TContext>,
  batch: number,
): Settled | Promise<Settled> {
  const { memory } = state;
  const { turn } = run;
  const size = memory.reserve(turn, call.idBytes, call.content, false);
  if (size < 0) {
    return refuse(
      state.runtime,
      turn,
      base,
      'memory_full',
      `The tool "${call.tool}" was not run: the gate remembers as many calls as it may (limits.maxRememberedCalls / maxRememberedBytes)`,
    );
  }
  let answer: Settled | Promise<Settled>;
  try {
    answer = reserved(state, call, base, run, batch);
  } catch (error) {
    memory.unreserve(size);
    throw error;
  }
  if (isPromise(answer)) return afterSettled(answer, () => memory.unreserve(size));
  memory.unreserve(size);
  return answer;
}

function reserved<TContext>(
  state: CallsState<TContext>,
  call: CheckedCall,
  base: CallBase,
  run: ToolRunOptions<TContext>,
  batch: number,
): Settled | Promise<Settled> {
  const { memory, repeatedContent, runtime } = state;
  const { turn } = run;
  const same = memory.sameContent(turn, call.content, batch);
  if (same !== undefined && repeatedContent === 'refuse') {
    return refuse(
      runtime,
      turn,
      base,
      'already_applied',
      `The same call (${call.tool} with the same arguments) already ran in this turn as "${same.id}"; it did not run again`,
    );
  }
  if (same !== undefined && repeatedContent === 'replay') {
    const settled = replayAs(base, same.id, same.entry.settled);
    memory.remember(turn, call.id, settled, call.content, batch, call.idBytes);
    return settled;
  }
  const judged = judgeCall(runtime, call, base.requested, run);
  const sameId = same?.id;
  if (!isPromise(judged)) return judgedCall(state, turn, call, judged, sameId, batch);
  return judged.then((settled) => judgedCall(state, turn, call, settled, sameId, batch));
}

/** Reports a repair, marks a repeated content and remembers what ran. */
function judgedCall<TContext>(
  state: CallsState<TContext>,
  turn: number,
  call: CheckedCall,
  judged: Settled,
  sameAs: string | undefined,
  batch: number,
): Settled {
  const repair = judged.record.repair;
  if (repair !== undefined) state.events.emit('repaired', { turn, id: call.id, repair });
  const settled = sameAs === undefined || !judged.ran ? judged : marked(judged, sameAs);
  if (settled.ran || settled.failed?.code === 'outcome_unknown') {
    state.memory.remember(turn, call.id, settled, call.content, batch, call.idBytes);
  }
  return settled;
}

/** @internal Runs `after` once `answer` settles, before whoever awaits it resumes. */
export function afterSettled<T>(answer: Promise<T>, after: () => void): Promise<T> {
  return answer.then(
    (value) => {
      after();
      return value;
    },
    (error: unknown) => {
      after();
      throw error;
    },
  );
}
