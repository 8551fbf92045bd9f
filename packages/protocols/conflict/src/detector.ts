import { ConflictError } from './errors.js';
import { clip } from './internal/checks.js';
import { effectsOf } from './internal/effects.js';
import type { AppliedAction, ConflictDebug, Proposal } from './types.js';

/**
 * What a detector receives besides the proposal and the state.
 *
 * @example
 * ```ts
 * import type { DetectContext } from '@parley/conflict';
 *
 * const context: DetectContext = { attempt: 2, applied: [{ id: 'call_1', tool: 'hp_delta' }] };
 * ```
 */
export interface DetectContext {
  /** 1-based attempt number. */
  readonly attempt: number;
  /** Calls executed in earlier attempts of this run; a claim they already settle is no conflict. */
  readonly applied: readonly AppliedAction[];
  /**
   * What the turn will have taken effect if this proposal is accepted, each effect once: the
   * calls applied in earlier attempts plus the proposal's calls that are not equal to one of
   * them (a call re-sent under a fresh id is the applied one, not a second effect). The conflict
   * loop sets it; when a detector made by {@link defineDetector} is called without it, the
   * detector works it out from `applied` and the proposal, so its `detect` always receives it.
   * Match claims against this, not against `proposal.tool_calls` plus `applied`.
   */
  readonly effects?: readonly AppliedAction[] | undefined;
}

/**
 * A conflict as a detector returns it: a `conflict_debug`, optionally with the matched text and
 * the call concerned. The loop adds the detector's name.
 *
 * @example
 * ```ts
 * import type { DetectedConflict } from '@parley/conflict';
 *
 * const found: DetectedConflict = {
 *   expected_state_snippet: { alive_state: 'dead' },
 *   mismatch_reason: 'A dead character speaks',
 *   instructions: 'Dead characters do not act; narrate without them.',
 *   evidence: 'Borin says',
 * };
 * ```
 */
export interface DetectedConflict extends ConflictDebug {
  readonly evidence?: string | undefined;
  readonly call_id?: string | undefined;
}

/**
 * What a detector's `detect` may return: nothing (no conflict), one conflict, or a list.
 *
 * @example
 * ```ts
 * import type { DetectResult } from '@parley/conflict';
 *
 * const clean: DetectResult = undefined;
 * ```
 */
export type DetectResult = DetectedConflict | readonly DetectedConflict[] | undefined | null | false;

/**
 * A check of a proposal against the authoritative state, made by {@link defineDetector}.
 *
 * @example
 * ```ts
 * import { defineDetector, type Detector } from '@parley/conflict';
 *
 * const silent: Detector<unknown> = defineDetector({ name: 'silent', detect: () => undefined });
 * ```
 */
export interface Detector<TState> {
  readonly name: string;
  /** The tools whose effects this detector checks (empty when it checks none in particular). */
  readonly tools: readonly string[];
  /** Returns the conflicts found, always as a list. */
  detect(proposal: Proposal, state: TState, context: DetectContext): Promise<readonly DetectedConflict[]>;
}

/**
 * What {@link defineDetector} takes.
 *
 * @example
 * ```ts
 * import type { DetectorInit } from '@parley/conflict';
 *
 * const init: DetectorInit<{ night: boolean }> = {
 *   name: 'no_sun_at_night',
 *   detect: (proposal, state) =>
 *     state.night && /sunlight/i.test(proposal.text) && {
 *       expected_state_snippet: { night: true },
 *       mismatch_reason: 'It is night, the text describes sunlight',
 *       instructions: 'Describe a night scene.',
 *     },
 * };
 * ```
 */
export interface DetectorInit<TState> {
  /** A stable name, reported in every conflict it finds (`detector`). */
  readonly name: string;
  /**
   * The state-changing tools this detector checks, e.g. `['hp_delta']` for a check that HP changes
   * only through `hp_delta`. A loop's `stateTools` must each be named by one of its detectors.
   */
  readonly tools?: readonly string[];
  /**
   * Pure check; may be async. Throwing rejects the run with `detector_failed`. Its context always
   * holds `effects`, worked out from `applied` and the proposal when the caller gave none.
   */
  readonly detect: (
    proposal: Proposal,
    state: TState,
    context: DetectContext & { readonly effects: readonly AppliedAction[] },
  ) => DetectResult | Promise<DetectResult>;
}

/**
 * Defines a detector: a named check that compares a proposal (text and structured calls) with the
 * authoritative state and returns the conflicts it finds as `conflict_debug` entries.
 *
 * Use it for every rule of your domain the ready detectors do not cover; the result is a static
 * definition, fine as a module constant, and is passed to `createConflictLoop({ detectors })`.
 *
 * @throws ConflictError `invalid_argument` when `name` is empty or `detect` is not a function.
 * `detector_failed` (from `detect`, at run time) when it returns something that is not a conflict
 * list: each entry needs a non-empty `mismatch_reason` and `instructions`.
 * @example
 * ```ts
 * import { defineDetector } from '@parley/conflict';
 *
 * interface Campaign { dead: readonly string[] }
 *
 * export const deadDoNotSpeak = defineDetector<Campaign>({
 *   name: 'dead_do_not_speak',
 *   detect: (proposal, state) =>
 *     state.dead
 *       .filter((name) => proposal.text.includes(`${name} says`))
 *       .map((name) => ({
 *         expected_state_snippet: { [name]: { alive_state: 'dead' } },
 *         mismatch_reason: `${name} is dead but speaks`,
 *         instructions: `${name} is dead; do not give them lines.`,
 *         evidence: `${name} says`,
 *       })),
 * });
 *
 * const found = await deadDoNotSpeak.detect({ text: 'Borin says hello.' }, { dead: ['Borin'] }, { attempt: 1, applied: [] });
 * console.log(found.length); // 1
 * ```
 */
export function defineDetector<TState = unknown>(init: DetectorInit<TState>): Detector<TState> {
  if (typeof init?.name !== 'string' || init.name.trim() === '') {
    throw new ConflictError('invalid_argument', 'A detector needs a non-empty name');
  }
  if (typeof init.detect !== 'function') {
    throw new ConflictError('invalid_argument', `Detector "${init.name}" needs a detect function`, {
      details: { detector: init.name },
    });
  }
  const { name, detect } = init;
  const tools = init.tools ?? [];
  if (!Array.isArray(tools) || tools.some((tool) => typeof tool !== 'string' || tool === '')) {
    throw new ConflictError('invalid_argument', `Detector "${name}" needs tools as a list of tool names`, {
      details: { detector: name },
    });
  }
  return Object.freeze({
    name,
    tools: Object.freeze([...tools]),
    async detect(proposal: Proposal, state: TState, context: DetectContext) {
      const effects = context.effects ?? effectsOf(proposal, context.applied ?? []);
      const result = await detect(proposal, state, { ...context, effects });
      if (result === undefined || result === null || result === false) return [];
      const list: readonly unknown[] = Array.isArray(result) ? result : [result];
      return list.map((entry, index) => checkConflict(name, entry, index));
    },
  });
}

/** A conflict's texts are cut to this many characters, so feedback stays bounded. */
const MAX_TEXT = 1_000;

function checkConflict(detector: string, entry: unknown, index: number): DetectedConflict {
  const value = entry as Partial<DetectedConflict> | null; // every field is checked below
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof value.mismatch_reason !== 'string' ||
    value.mismatch_reason === '' ||
    typeof value.instructions !== 'string' ||
    value.instructions === ''
  ) {
    throw new ConflictError(
      'detector_failed',
      `Detector "${detector}" returned a conflict without mismatch_reason and instructions`,
      { details: { detector, index } },
    );
  }
  return {
    expected_state_snippet: value.expected_state_snippet ?? null,
    mismatch_reason: clip(value.mismatch_reason, MAX_TEXT),
    instructions: clip(value.instructions, MAX_TEXT),
    ...(typeof value.evidence === 'string' ? { evidence: clip(value.evidence, MAX_TEXT) } : {}),
    ...(typeof value.call_id === 'string' ? { call_id: clip(value.call_id, MAX_TEXT) } : {}),
  };
}
