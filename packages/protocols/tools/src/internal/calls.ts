import type { ToolRunOptions } from '../gate-types.js';
import type { ToolGateLimits } from '../limits.js';
import type { ToolGateEvents } from '../types.js';
import { afterSettled, type CallsState, decide, storedThenDecide } from './call-decide.js';
import { checkCall } from './call-shape.js';
import type { CallMemory } from './memory.js';
import { refuse } from './refuse.js';
import type { CallBase, CheckedCall, Settled } from './runtime.js';
import type { StoredAnswers } from './stored.js';
import { isPromise } from './promise.js';

/** What judging a gate's calls one by one needs from the gate. */
export interface CallHandlerOptions<TContext> {
  readonly answers: StoredAnswers<TContext>;
  readonly memory: CallMemory;
  readonly limits: ToolGateLimits;
  readonly repeatedContent: 'run' | 'replay' | 'refuse';
  readonly emit: <K extends keyof ToolGateEvents & string>(event: K, payload: ToolGateEvents[K]) => void;
}

/** Judges one call of a batch: its shape, its id in the turn, the memory, then the judgement. */
export type CallHandler<TContext> = (
  raw: unknown,
  index: number,
  repeated: ReadonlySet<string>,
  run: ToolRunOptions<TContext>,
  batch: number,
) => Settled | Promise<Settled>;

/** Creates the function that judges each call of a batch, with its in-flight marks. */
export function createCallHandler<TContext>(options: CallHandlerOptions<TContext>): CallHandler<TContext> {
  const { answers, memory, limits, repeatedContent } = options;
  const state: CallsState<TContext> = {
    answers,
    runtime: answers.runtime,
    memory,
    limits,
    repeatedContent,
    events: { emit: options.emit },
    inflight: new Map(),
    activeTurns: [],
    activeIds: [],
  };
  return (raw, index, repeated, run, batch) => handle(state, raw, index, repeated, run, batch);
}

/**
 * Judges one call of a batch. Answers with a promise only when it must wait: for an earlier call
 * with the same turn and id, for the store, or for something asynchronous the judgement calls.
 */
function handle<TContext>(
  state: CallsState<TContext>,
  raw: unknown,
  index: number,
  repeated: ReadonlySet<string>,
  run: ToolRunOptions<TContext>,
  batch: number,
): Settled | Promise<Settled> {
  const { runtime, inflight } = state;
  const { turn } = run;
  const call = checkCall(raw, index, state.limits);
  if ('problem' in call) {
    return refuse(runtime, turn, call.base, 'invalid_call', `The call is malformed: ${call.problem}`);
  }
  const base: CallBase = call; // what its refusals report: the checked call itself
  if (repeated.has(call.id)) {
    return refuse(
      runtime,
      turn,
      base,
      'duplicate_call_id',
      `The id "${call.id}" is used by more than one call in this batch; none of them ran. Give each call its own id`,
    );
  }
  if (run.signal?.aborted === true) {
    return refuse(runtime, turn, base, 'cancelled', 'The batch was cancelled before this call ran');
  }
  if (state.memory.stale(turn)) {
    return refuse(
      runtime,
      turn,
      base,
      'stale_turn',
      `Turn ${turn} is older than the turns this gate remembers, so it cannot tell what already ran; nothing in it runs`,
    );
  }
  if ((inflight.size > 0 && inflight.has(keyOf(turn, call.id))) || isActive(state, turn, call.id)) {
    return waitThenStart(state, call, base, run, batch);
  }
  return start(state, call, base, run, batch);
}

function isActive<TContext>(state: CallsState<TContext>, turn: number, id: string): boolean {
  const { activeIds, activeTurns } = state;
  for (let i = activeIds.length - 1; i >= 0; i--) {
    if (activeIds[i] === id && activeTurns[i] === turn) return true;
  }
  return false;
}

/** Waits until no call with the same turn and id is being judged, then judges this one. */
async function waitThenStart<TContext>(
  state: CallsState<TContext>,
  call: CheckedCall,
  base: CallBase,
  run: ToolRunOptions<TContext>,
  batch: number,
): Promise<Settled> {
  const { inflight } = state;
  const key = keyOf(run.turn, call.id);
  for (;;) {
    let waiting = inflight.get(key);
    if (waiting === undefined) {
      if (!isActive(state, run.turn, call.id)) break;
      // Called again from inside that call's own synchronous part (its executor, say): wait for it.
      waiting = { ended: undefined, release: undefined };
      inflight.set(key, waiting);
    }
    // The promise is made by the first call that waits: an uncontended call allocates none.
    const current = waiting;
    current.ended ??= new Promise<void>((resolve) => {
      current.release = resolve;
    });
    await current.ended;
  }
  return start(state, call, base, run, batch);
}

/** Judges a call no other call with its turn and id is judging; marks it in flight meanwhile. */
function start<TContext>(
  state: CallsState<TContext>,
  call: CheckedCall,
  base: CallBase,
  run: ToolRunOptions<TContext>,
  batch: number,
): Settled | Promise<Settled> {
  const { memory, activeTurns, activeIds, inflight } = state;
  const { turn } = run;
  const recorded = memory.local(turn, call.id);
  if (recorded !== undefined) return state.answers.answerRemembered(turn, base, recorded);
  activeTurns.push(turn);
  activeIds.push(call.id);
  let answer: Settled | Promise<Settled>;
  try {
    answer = memory.persistent
      ? storedThenDecide(state, call, base, run, batch)
      : decide(state, call, base, run, batch);
  } catch (error) {
    popActive(state);
    ended(state, turn, call.id);
    throw error;
  }
  popActive(state); // nested calls popped their own before answering
  // Ended before this call's own answer is read, so the batch that came first goes on first.
  if (!isPromise(answer)) {
    ended(state, turn, call.id);
    return answer;
  }
  // Still in the same synchronous pass: until it ends, a call that waits is marked in the map.
  const key = keyOf(turn, call.id);
  if (!inflight.has(key)) inflight.set(key, { ended: undefined, release: undefined });
  return afterSettled(answer, () => ended(state, turn, call.id));
}

function popActive<TContext>(state: CallsState<TContext>): void {
  state.activeTurns.pop();
  state.activeIds.pop();
}

/** Unmarks a call that ended and wakes what waited for it. */
function ended<TContext>(state: CallsState<TContext>, turn: number, id: string): void {
  const { inflight } = state;
  if (inflight.size === 0) return;
  const key = keyOf(turn, id);
  const waiting = inflight.get(key);
  if (waiting === undefined) return;
  inflight.delete(key);
  waiting.release?.();
}

const keyOf = (turn: number, id: string): string => `${turn}\u0000${id}`;
