import { type DetectedConflict, type Detector, defineDetector } from '../detector.js';
import { ConflictError } from '../errors.js';
import type { Proposal } from '../types.js';

/**
 * Options for {@link defineProtectedFieldsDetector}.
 *
 * @example
 * ```ts
 * import type { ProtectedFieldsDetectorOptions } from '@parley/conflict';
 *
 * const options: ProtectedFieldsDetectorOptions = {
 *   fields: ['world.rules', 'map.areas', 'characters.*.hp.max', 'characters.*.race'],
 *   proposed: (proposal) => proposal.structured?.['state_patch'],
 * };
 * ```
 */
export interface ProtectedFieldsDetectorOptions {
  /** Dotted paths into the state only the system may change; `*` stands for any one key. */
  readonly fields: readonly string[];
  /** Reported as `detector`; `protected_fields` by default. */
  readonly name?: string;
  /** Where the proposal holds the state it asserts, shaped like the state; `proposal.structured` by default. */
  readonly proposed?: (proposal: Proposal) => unknown;
  /** The retry instruction; an English sentence listing the fields by default. */
  readonly instructions?: string;
}

/**
 * Defines the detector for the reference document's third example: the model rewrites world
 * rules, map structure or character-sheet fields that only the system may change. Every protected
 * path present in the proposal's structured output must equal the authoritative state there.
 *
 * Use it when the model returns structured state (a character sheet, a scene, a patch) next to its
 * text. It compares structure, not prose: a rule rewritten only in narrative is not seen.
 *
 * @throws ConflictError `invalid_argument` when `fields` is empty or holds an empty path.
 * @example
 * ```ts
 * import { defineProtectedFieldsDetector } from '@parley/conflict';
 *
 * const state = { characters: { pc_1: { hp: { current: 12, max: 20 } } } };
 * const sheet = defineProtectedFieldsDetector({ fields: ['characters.*.hp.max'] });
 * const found = await sheet.detect(
 *   { text: 'You feel stronger.', structured: { characters: { pc_1: { hp: { max: 30 } } } } },
 *   state,
 *   { attempt: 1, applied: [] },
 * );
 * console.log(found[0]?.evidence); // characters.pc_1.hp.max
 * ```
 */
export function defineProtectedFieldsDetector<TState = unknown>(
  options: ProtectedFieldsDetectorOptions,
): Detector<TState> {
  const fields = options?.fields;
  if (
    !Array.isArray(fields) ||
    fields.length === 0 ||
    fields.some((f) => typeof f !== 'string' || f === '')
  ) {
    throw new ConflictError('invalid_argument', 'fields must list at least one non-empty dotted path');
  }
  const paths = fields.map((field) => field.split('.'));
  const proposedOf = options.proposed ?? ((proposal: Proposal) => proposal.structured);
  const instructions =
    options.instructions ??
    `Do not change system-owned fields (${fields.join(', ')}): leave them as they are, and request a tool call for any change the rules allow.`;
  return defineDetector<TState>({
    name: options.name ?? 'protected_fields',
    detect(proposal, state) {
      const proposed = proposedOf(proposal);
      if (proposed === undefined) return [];
      const found = new Map<string, DetectedConflict>();
      for (const path of paths) {
        for (const { at, value, authoritative } of rewrites(path, proposed, state)) {
          const where = at.join('.');
          found.set(where, {
            expected_state_snippet: { [where]: authoritative ?? null },
            mismatch_reason: `The output rewrites "${where}", which only the system may change (authoritative: ${show(authoritative)}, proposed: ${show(value)})`,
            instructions,
            evidence: where,
          });
        }
      }
      return [...found.values()];
    },
  });
}

interface Rewrite {
  readonly at: readonly string[];
  readonly value: unknown;
  readonly authoritative: unknown;
}

/** Walks `proposed` along a pattern and yields each place it differs from `state`. */
function rewrites(pattern: readonly string[], proposed: unknown, state: unknown): Rewrite[] {
  const out: Rewrite[] = [];
  const walk = (index: number, value: unknown, authoritative: unknown, at: readonly string[]): void => {
    if (index === pattern.length) {
      if (!isDeepEqual(value, authoritative)) out.push({ at, value, authoritative });
      return;
    }
    if (!isContainer(value)) {
      // The proposal replaced a container that holds protected fields with a plain value.
      if (at.length > 0 && isContainer(authoritative)) out.push({ at, value, authoritative });
      return;
    }
    const segment = pattern[index]!; // index < pattern.length
    const keys = segment === '*' ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : [];
    for (const key of keys) {
      const inner = isContainer(authoritative) ? (authoritative as Record<string, unknown>)[key] : undefined;
      walk(index + 1, (value as Record<string, unknown>)[key], inner, [...at, key]);
    }
  };
  walk(0, proposed, state, []);
  return out;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>; // both are non-null objects here
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && isDeepEqual(left[key], right[key]));
}

function show(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
