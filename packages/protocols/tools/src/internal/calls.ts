import type { ToolRunOptions } from '../gate-types.js';
import type { ToolGateLimits } from '../limits.js';
import type { ToolGateEvents } from '../types.js';
import { checkCall, marked, replayAs, requestedOf } from './call-shape.js';
import { judgeCall } from './judge.js';
import type { CallMemory } from './memory.js';
import type { StoredLookup } from './remembered.js';
import { refuse } from './refuse.js';
import type { CallBase, CheckedCall, Settled } from './runtime.js';
import type { StoredAnswers } from './stored.js';

/** A call being judged; `ended` settles when it is done, made only when another call waits for it. */
interface Inflight {
  ended: Promise<void> | undefined;
  release: (() => void) | undefined;
}

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
  const { runtime, answerRemembered, answerStored, storeFailed } = answers;
  const events = { emit: options.emit };
  /**
   * Calls being judged that wait for something (or that another call waits for), by turn and id; a
   * later call with the same key waits for the first to end. A call judged in one synchronous pass
   * is only on `activeTurns` / `activeIds` (the calls whose synchronous part is running, innermost last):
   * it never touches the map, whose retired hash tables would keep its outcome in the old generation.
   */
  const inflight = new Map<string, Inflight>();
  /** The turns and ids of the calls whose synchronous part is running, innermost last. */
  const activeTurns: number[] = [];
  const activeIds: string[] = [];
  const isActive = (turn: number, id: string): boolean => {
    for (let i = activeIds.length - 1; i >= 0; i--) {
      if (activeIds[i] === id && activeTurns[i] === turn) return true;
    }
    return false;
  };

  /**
   * Judges one call of a batch. Answers with a promise only when it must wait: for an earlier call
   * with the same turn and id, for the store, or for something asynchronous the judgement calls.
   */
  function handle(
    raw: unknown,
    index: number,
    repeated: ReadonlySet<string>,
    run: ToolRunOptions<TContext>,
    batch: number,
  ): Settled | Promise<Settled> {
    const { turn } = run;
    const shape = checkCall(raw, index, limits);
    if (!shape.ok) {
      return refuse(runtime, turn, shape.base, 'invalid_call', `The call is malformed: ${shape.problem}`);
    }
    const call = shape.call;
    const base: CallBase = {
      id: call.id,
      tool: call.tool,
      requested: requestedOf(call),
      content: call.content,
    };
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
    if (memory.stale(turn)) {
      return refuse(
        runtime,
        turn,
        base,
        'stale_turn',
        `Turn ${turn} is older than the turns this gate remembers, so it cannot tell what already ran; nothing in it runs`,
      );
    }
    if ((inflight.size > 0 && inflight.has(keyOf(turn, call.id))) || isActive(turn, call.id)) {
      return waitThenStart(call, base, run, batch);
    }
    return start(call, base, run, batch);
  }

  /** Waits until no call with the same turn and id is being judged, then judges this one. */
  async function waitThenStart(
    call: CheckedCall,
    base: CallBase,
    run: ToolRunOptions<TContext>,
    batch: number,
  ): Promise<Settled> {
    const key = keyOf(run.turn, call.id);
    for (;;) {
      let waiting = inflight.get(key);
      if (waiting === undefined) {
        if (!isActive(run.turn, call.id)) break;
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
    return start(call, base, run, batch);
  }

  /** Judges a call no other call with its turn and id is judging; marks it in flight meanwhile. */
  function start(
    call: CheckedCall,
    base: CallBase,
    run: ToolRunOptions<TContext>,
    batch: number,
  ): Settled | Promise<Settled> {
    const { turn } = run;
    const recorded = memory.local(turn, call.id);
    if (recorded !== undefined) return answerRemembered(turn, base, recorded);
    activeTurns.push(turn);
    activeIds.push(call.id);
    let answer: Settled | Promise<Settled>;
    try {
      answer = memory.persistent ? storedThenDecide(call, base, run, batch) : decide(call, base, run, batch);
    } catch (error) {
      popActive();
      ended(turn, call.id);
      throw error;
    }
    popActive(); // nested calls popped their own before answering
    // Ended before this call's own answer is read, so the batch that came first goes on first.
    if (!(answer instanceof Promise)) {
      ended(turn, call.id);
      return answer;
    }
    // Still in the same synchronous pass: until it ends, a call that waits is marked in the map.
    const key = keyOf(turn, call.id);
    if (!inflight.has(key)) inflight.set(key, { ended: undefined, release: undefined });
    return afterSettled(answer, () => ended(turn, call.id));
  }

  function popActive(): void {
    activeTurns.pop();
    activeIds.pop();
  }

  /** Unmarks a call that ended and wakes what waited for it. */
  function ended(turn: number, id: string): void {
    if (inflight.size === 0) return;
    const key = keyOf(turn, id);
    const waiting = inflight.get(key);
    if (waiting === undefined) return;
    inflight.delete(key);
    waiting.release?.();
  }

  /** With a store: answers from what it holds for the call, else judges it. */
  async function storedThenDecide(
    call: CheckedCall,
    base: CallBase,
    run: ToolRunOptions<TContext>,
    batch: number,
  ): Promise<Settled> {
    let found: StoredLookup;
    try {
      found = await memory.stored(run.turn, base.id);
    } catch (error) {
      return storeFailed(run.turn, base, error);
    }
    return answerStored(run.turn, base, found) ?? decide(call, base, run, batch);
  }

  /** Reserves room to remember the call, answers a repeated content, or judges and runs it. */
  function decide(
    call: CheckedCall,
    base: CallBase,
    run: ToolRunOptions<TContext>,
    batch: number,
  ): Settled | Promise<Settled> {
    const { turn } = run;
    const size = memory.reserve(
      turn,
      call.idBytes + call.content.bound,
      () => call.idBytes + call.content.bytes,
    );
    if (size < 0) {
      return refuse(
        runtime,
        turn,
        base,
        'memory_full',
        `The tool "${call.tool}" was not run: the gate remembers as many calls as it may (limits.maxRememberedCalls / maxRememberedBytes)`,
      );
    }
    let answer: Settled | Promise<Settled>;
    try {
      answer = reserved(call, base, run, batch);
    } catch (error) {
      memory.unreserve(size);
      throw error;
    }
    if (answer instanceof Promise) return afterSettled(answer, () => memory.unreserve(size));
    memory.unreserve(size);
    return answer;
  }

  function reserved(
    call: CheckedCall,
    base: CallBase,
    run: ToolRunOptions<TContext>,
    batch: number,
  ): Settled | Promise<Settled> {
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
      memory.remember(turn, call.id, { settled, content: call.content }, batch, call.idBytes);
      return settled;
    }
    const judged = judgeCall(runtime, call, base.requested, run);
    const sameId = same?.id;
    if (!(judged instanceof Promise)) return judgedCall(turn, call, judged, sameId, batch);
    return judged.then((settled) => judgedCall(turn, call, settled, sameId, batch));
  }

  /** Reports a repair, marks a repeated content and remembers what ran. */
  function judgedCall(
    turn: number,
    call: CheckedCall,
    judged: Settled,
    sameAs: string | undefined,
    batch: number,
  ): Settled {
    const repair = judged.record.repair;
    if (repair !== undefined) events.emit('repaired', { turn, id: call.id, repair });
    const settled = sameAs === undefined || !judged.ran ? judged : marked(judged, sameAs);
    if (settled.ran || settled.failed?.code === 'outcome_unknown') {
      memory.remember(turn, call.id, { settled, content: call.content }, batch, call.idBytes);
    }
    return settled;
  }

  return handle;
}

const keyOf = (turn: number, id: string): string => `${turn}\u0000${id}`;

/** Runs `after` once `answer` settles, before whoever awaits it resumes. */
function afterSettled<T>(answer: Promise<T>, after: () => void): Promise<T> {
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
