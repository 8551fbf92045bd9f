import type { ToolGateEvents } from '../types.js';
import { replay } from './call-shape.js';
import type { CallMemory } from './memory.js';
import { utf8Length } from './content.js';
import type { Remembered, StoredLookup } from './remembered.js';
import { refuse } from './refuse.js';
import type { CallBase, Runtime, Settled } from './runtime.js';

/** The answers a gate gives from what its memory or its store already holds for a call. */
export interface StoredAnswers<TContext> {
  readonly runtime: Runtime<TContext>;
  answerRemembered(turn: number, base: CallBase, remembered: Remembered): Settled;
  answerStored(turn: number, base: CallBase, found: StoredLookup): Settled | undefined;
  storeFailed(turn: number, base: CallBase, error: unknown): Settled;
}

type Emit = <K extends keyof ToolGateEvents & string>(event: K, payload: ToolGateEvents[K]) => void;

/** What the answers of one gate refuse with, remember in and report to. */
interface AnswerState<TContext> {
  readonly runtime: Runtime<TContext>;
  readonly memory: CallMemory;
  readonly events: { readonly emit: Emit };
}

/**
 * Completes the gate's runtime with the claim and release of calls in the store (when there is
 * one), and gives the answers read from memory or the store: a replay, `call_id_reused`,
 * `outcome_unknown` or `store_failed`.
 */
export function createStoredAnswers<TContext>(
  base: Omit<Runtime<TContext>, 'persist'>,
  memory: CallMemory,
  emit: Emit,
): StoredAnswers<TContext> {
  const s: AnswerState<TContext> = { runtime: base, memory, events: { emit } };
  const persist: NonNullable<Runtime<TContext>['persist']> | undefined = memory.persistent
    ? {
        async claim(turn, base) {
          let found: StoredLookup | undefined;
          try {
            found = await memory.claim(turn, base);
          } catch (error) {
            return storeFailed(s, turn, base, error);
          }
          return found === undefined ? undefined : answerStored(s, turn, base, found);
        },
        async release(turn, base, settled) {
          try {
            await memory.release(turn, base, settled);
          } catch (error) {
            const tool = settled.record.requested.tool;
            s.events.emit('error', { turn, id: base.id, tool, stage: 'store', error });
          }
        },
      }
    : undefined;
  const complete: Runtime<TContext> = persist === undefined ? base : { ...base, persist };
  return {
    runtime: complete,
    answerRemembered: (turn, base, remembered) => answerRemembered(s, turn, base, remembered),
    answerStored: (turn, base, found) => answerStored(s, turn, base, found),
    storeFailed: (turn, base, error) => storeFailed(s, turn, base, error),
  };
}

function unknownOutcome<TContext>(s: AnswerState<TContext>, turn: number, base: CallBase): Settled {
  return refuse(
    s.runtime,
    turn,
    base,
    'outcome_unknown',
    `The call "${base.id}" was started before and its outcome is unknown (a restart, or another replica running it); it was not run again`,
  );
}

function storeFailed<TContext>(
  s: AnswerState<TContext>,
  turn: number,
  base: CallBase,
  error: unknown,
): Settled {
  s.events.emit('error', { turn, id: base.id, tool: base.tool, stage: 'store', error });
  return refuse(
    s.runtime,
    turn,
    base,
    'store_failed',
    `The tool "${base.tool}" was not run: its run could not be recorded`,
  );
}

/** The answer to a call whose id is remembered: a replay for the same content, else `call_id_reused`. */
function answerRemembered<TContext>(
  s: AnswerState<TContext>,
  turn: number,
  base: CallBase,
  remembered: Remembered,
): Settled {
  if (remembered.content.same(base.content)) return replay(remembered.settled);
  return reused(s, turn, base, remembered.settled.record.requested.tool);
}

function reused<TContext>(
  s: AnswerState<TContext>,
  turn: number,
  base: CallBase,
  earlierTool: string,
): Settled {
  const earlier = earlierTool === base.requested.tool ? `${earlierTool} with other arguments` : earlierTool;
  return refuse(
    s.runtime,
    turn,
    base,
    'call_id_reused',
    `The id "${base.id}" was already used in this turn for another call (${earlier}); this call did not run. Send it again with a new id`,
  );
}

/** Remembers locally what the store holds, when there is room (the store stays the record otherwise). */
function keep(memory: CallMemory, turn: number, id: string, entry: Remembered): void {
  const size = memory.reserve(turn, utf8Length(id), entry.content, true);
  if (size < 0) return;
  memory.unreserve(size);
  memory.remember(turn, id, entry.settled, entry.content, -1);
}

/** The answer to a call the store already holds (remembered locally from now on), or `undefined`. */
function answerStored<TContext>(
  s: AnswerState<TContext>,
  turn: number,
  base: CallBase,
  found: StoredLookup,
): Settled | undefined {
  switch (found.kind) {
    case 'none':
      return undefined;
    case 'corrupt':
      s.events.emit('error', { turn, id: base.id, tool: base.tool, stage: 'store', error: found.error });
      return unknownOutcome(s, turn, base);
    case 'done':
      keep(s.memory, turn, base.id, found);
      return answerRemembered(s, turn, base, found);
    case 'executing': {
      if (found.content !== undefined && found.content !== base.content.text)
        return reused(s, turn, base, found.tool);
      const settled = unknownOutcome(s, turn, base);
      keep(s.memory, turn, base.id, { settled, content: base.content });
      return settled;
    }
  }
}
