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

/**
 * Completes the gate's runtime with the claim and release of calls in the store (when there is
 * one), and gives the answers read from memory or the store: a replay, `call_id_reused`,
 * `outcome_unknown` or `store_failed`.
 */
export function createStoredAnswers<TContext>(
  base: Omit<Runtime<TContext>, 'persist'>,
  memory: CallMemory,
  emit: <K extends keyof ToolGateEvents & string>(event: K, payload: ToolGateEvents[K]) => void,
): StoredAnswers<TContext> {
  const events = { emit };
  const runtime: Runtime<TContext> = base;
  function unknownOutcome(turn: number, base: CallBase): Settled {
    return refuse(
      runtime,
      turn,
      base,
      'outcome_unknown',
      `The call "${base.id}" was started before and its outcome is unknown (a restart, or another replica running it); it was not run again`,
    );
  }

  function storeFailed(turn: number, base: CallBase, error: unknown): Settled {
    events.emit('error', { turn, id: base.id, tool: base.tool, stage: 'store', error });
    return refuse(
      runtime,
      turn,
      base,
      'store_failed',
      `The tool "${base.tool}" was not run: its run could not be recorded`,
    );
  }

  /** The answer to a call whose id is remembered: a replay for the same content, else `call_id_reused`. */
  function answerRemembered(turn: number, base: CallBase, remembered: Remembered): Settled {
    if (remembered.content.same(base.content)) return replay(remembered.settled);
    return reused(turn, base, remembered.settled.record.requested.tool);
  }

  function reused(turn: number, base: CallBase, earlierTool: string): Settled {
    const earlier = earlierTool === base.requested.tool ? `${earlierTool} with other arguments` : earlierTool;
    return refuse(
      runtime,
      turn,
      base,
      'call_id_reused',
      `The id "${base.id}" was already used in this turn for another call (${earlier}); this call did not run. Send it again with a new id`,
    );
  }

  /** Remembers locally what the store holds, when there is room (the store stays the record otherwise). */
  function keep(turn: number, id: string, entry: Remembered): void {
    const size = memory.reserve(turn, utf8Length(id) + entry.content.bytes, undefined);
    if (size < 0) return;
    memory.unreserve(size);
    memory.remember(turn, id, entry, -1);
  }

  /** The answer to a call the store already holds (remembered locally from now on), or `undefined`. */
  function answerStored(turn: number, base: CallBase, found: StoredLookup): Settled | undefined {
    switch (found.kind) {
      case 'none':
        return undefined;
      case 'corrupt':
        events.emit('error', { turn, id: base.id, tool: base.tool, stage: 'store', error: found.error });
        return unknownOutcome(turn, base);
      case 'done':
        keep(turn, base.id, found);
        return answerRemembered(turn, base, found);
      case 'executing': {
        if (found.content !== undefined && found.content !== base.content.text)
          return reused(turn, base, found.tool);
        const settled = unknownOutcome(turn, base);
        keep(turn, base.id, { settled, content: base.content });
        return settled;
      }
    }
  }

  const persist: NonNullable<Runtime<TContext>['persist']> | undefined = memory.persistent
    ? {
        async claim(turn, base) {
          let found: StoredLookup | undefined;
          try {
            found = await memory.claim(turn, base);
          } catch (error) {
            return storeFailed(turn, base, error);
          }
          return found === undefined ? undefined : answerStored(turn, base, found);
        },
        async release(turn, base, settled) {
          try {
            await memory.release(turn, base, settled);
          } catch (error) {
            events.emit('error', {
              turn,
              id: base.id,
              tool: settled.record.requested.tool,
              stage: 'store',
              error,
            });
          }
        },
      }
    : undefined;
  const complete: Runtime<TContext> = persist === undefined ? base : { ...base, persist };
  return { runtime: complete, answerRemembered, answerStored, storeFailed };
}
