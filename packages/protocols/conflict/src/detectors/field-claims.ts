import { type Detector, defineDetector } from '../detector.js';
import { type ClaimPattern, DEFAULT_CLAIM_GUARD, findClaims } from './claims.js';

/**
 * One authoritative field the narrative may talk about: where it lives, how prose names it and
 * what it holds. A rule, a map feature, a character-sheet field.
 *
 * @example
 * ```ts
 * import type { AuthoritativeField } from '@parley/conflict';
 *
 * const job: AuthoritativeField = { field: 'characters.pc_aria.job', subjects: ['Aria', 'her'], names: ['class', 'job'], value: 'ranger' };
 * const bridge: AuthoritativeField = { field: 'map.features.bridge', names: ['bridge'], value: false };
 * ```
 */
export interface AuthoritativeField {
  /** Where the value lives, reported in `expected_state_snippet` (e.g. `characters.pc_aria.job`). */
  readonly field: string;
  /** How prose names what the field belongs to (`Aria`, `her`); none for the world or the map itself. */
  readonly subjects?: readonly string[] | undefined;
  /** How prose names the field (`class`, `job`) or the thing (`bridge`). */
  readonly names: readonly string[];
  /** The authoritative value; a boolean says whether the thing exists (`false`: the map has none). */
  readonly value: string | boolean;
  /** Other words that state the same value (`archer` for `ranger`). */
  readonly equivalents?: readonly string[] | undefined;
}

/**
 * A phrase that claims something about a field. Named groups: `subject` (optional; `Aria's`, `her`),
 * `name` (the field or thing), `value` (optional). Without a `value` group the claim states `value`
 * (`true` by default: "the bridge has always been there" claims the bridge exists).
 *
 * @example
 * ```ts
 * import type { FieldClaimPattern } from '@parley/conflict';
 *
 * const sworn: FieldClaimPattern = { pattern: /\b(?<subject>\w+) swears? (?:an? )?(?<name>oath) of (?<value>\w+)/i };
 * ```
 */
export interface FieldClaimPattern {
  readonly pattern: RegExp;
  /** What the claim states when the pattern has no `value` group; `true` (it exists) by default. */
  readonly value?: string | boolean | undefined;
}

const WORD = String.raw`\p{L}[\p{L}\p{N}_-]*`;
const HAN = String.raw`\p{Script=Han}`;

/**
 * The phrases {@link defineFieldClaimDetector} looks for by default, in English and Chinese:
 * "the bridge has always been there", "there is a bridge", "a bridge spans the river", "her class
 * is now paladin", "Aria's race has become elf", "magic is now common", "桥一直都在那里",
 * "艾莉亚的职业变成了圣骑士". Which of them concern an authoritative field is decided by the
 * fields the host lists, so ordinary prose ("her voice is now calm") is no claim.
 *
 * @example
 * ```ts
 * import { DEFAULT_FIELD_CLAIM_PATTERNS } from '@parley/conflict';
 *
 * console.log(DEFAULT_FIELD_CLAIM_PATTERNS.some(({ pattern }) => pattern.test('Her class is now paladin.'))); // true
 * ```
 */
export const DEFAULT_FIELD_CLAIM_PATTERNS: readonly FieldClaimPattern[] = Object.freeze([
  {
    pattern: new RegExp(
      String.raw`(?<![\p{L}\p{N}])(?:the|an?)\s+(?<name>${WORD}(?:\s+${WORD}){0,2}?)\s+(?:has|had)\s+always\s+(?:been\s+(?:there|here)|stood(?:\s+(?:there|here))?|existed)`,
      'iu',
    ),
  },
  {
    pattern: new RegExp(
      String.raw`(?<![\p{L}\p{N}])there\s+(?:is|was|has\s+always\s+been|had\s+always\s+been)\s+(?:an?|the)\s+(?<name>${WORD}(?:\s+${WORD}){0,2}?)(?=\s+(?:across|over|between|on|in|at|to|from|here|there)\b|[.,;!?]|$)`,
      'iu',
    ),
  },
  {
    pattern: new RegExp(
      String.raw`(?<![\p{L}\p{N}])(?:the|an?)\s+(?<name>${WORD}(?:\s+${WORD}){0,2}?)\s+(?:spans|spanned|crosses|crossed)\s`,
      'iu',
    ),
  },
  {
    pattern: new RegExp(
      String.raw`(?<![\p{L}\p{N}])(?:(?<subject>${WORD}(?:'s|’s)|his|her|their|its)\s+)?(?<name>${WORD})\s+(?:is\s+now|are\s+now|now\s+is|has\s+(?:now\s+)?become|have\s+(?:now\s+)?become|becomes|became|has\s+always\s+been|was\s+always|has\s+changed\s+to|changed\s+to|changes\s+to|turns?\s+into|turned\s+into)\s+(?:an?\s+|the\s+)?(?<value>${WORD})`,
      'iu',
    ),
  },
  {
    pattern: new RegExp(
      String.raw`(?<name>${HAN}{1,4})(?:一直|始终|始終|向来|向來)都?(?:在那里|在那裡|在这里|在這裡|存在)`,
      'u',
    ),
  },
  {
    pattern: new RegExp(
      String.raw`(?<subject>${HAN}{1,6})的(?<name>${HAN}{1,4}?)(?:现在|現在|如今|已经|已經)?(?:变成了?|變成了?|改为|改為|成了|成为了?|成為了?)(?<value>[\p{Script=Han}\p{L}]{1,8})`,
      'u',
    ),
  },
]);

/**
 * Options for {@link defineFieldClaimDetector}.
 *
 * @example
 * ```ts
 * import type { FieldClaimDetectorOptions } from '@parley/conflict';
 *
 * const options: FieldClaimDetectorOptions<{ job: string }> = {
 *   fields: (state) => [{ field: 'job', subjects: ['her'], names: ['class'], value: state.job }],
 * };
 * ```
 */
export interface FieldClaimDetectorOptions<TState> {
  /** Reported as `detector`; `field_claim` by default. */
  readonly name?: string;
  /** The authoritative fields of `state` the narrative must not rewrite; read once per check. */
  readonly fields: (state: TState) => readonly AuthoritativeField[];
  /** The phrases that count as a claim; {@link DEFAULT_FIELD_CLAIM_PATTERNS} by default. */
  readonly patterns?: readonly FieldClaimPattern[];
  /** Skips a match when its clause so far matches this; {@link DEFAULT_CLAIM_GUARD} by default, `null` for none. */
  readonly guard?: RegExp | null;
  /** How names and values are compared; NFKC, lower case, trimmed, a trailing `'s` dropped by default. */
  readonly normalize?: (text: string) => string;
  /** The retry instruction; an English sentence by default. */
  readonly instructions?: string;
}

/** How many leading words (or Han characters) a claimed name or subject may carry beyond the field's. */
const MAX_EXTRA_WORDS = 5;

/**
 * Defines the detector for the reference document's third kind of conflict: prose that rewrites a
 * world rule, the map or a character-sheet field ("the bridge has always been there" when the map
 * has none, "her class is now paladin" for a ranger), not as a structured patch but in the story.
 *
 * Use it with the fields your host holds as authoritative, listed by `fields` with the words prose
 * uses for them; the vocabulary is yours, the matching is the package's. A claim about anything not
 * listed is ordinary prose and passes; a claim that agrees with the field passes. Linear in the
 * text: each pattern scans it once, the fields are indexed once per check, and each claim costs a
 * bounded number of lookups.
 *
 * @throws ConflictError `invalid_argument` when `name` is empty.
 * @example
 * ```ts
 * import { defineFieldClaimDetector } from '@parley/conflict';
 *
 * const sheet = defineFieldClaimDetector<{ job: string; bridge: boolean }>({
 *   fields: (state) => [
 *     { field: 'characters.pc_aria.job', subjects: ['Aria', 'her'], names: ['class'], value: state.job },
 *     { field: 'map.features.bridge', names: ['bridge'], value: state.bridge },
 *   ],
 * });
 * const state = { job: 'ranger', bridge: false };
 * const context = { attempt: 1, applied: [] };
 * const rewrite = await sheet.detect({ text: 'The bridge has always been there. Her class is now paladin.' }, state, context);
 * const prose = await sheet.detect({ text: 'Her voice is now calm; her class is now ranger.' }, state, context);
 * console.log(rewrite.length, prose.length); // 2 0
 * ```
 */
export function defineFieldClaimDetector<TState = unknown>(
  options: FieldClaimDetectorOptions<TState>,
): Detector<TState> {
  const patterns = options.patterns ?? DEFAULT_FIELD_CLAIM_PATTERNS;
  const asClaims: readonly ClaimPattern[] = patterns.map(({ pattern }) => ({ pattern }));
  const guard = options.guard === undefined ? DEFAULT_CLAIM_GUARD : options.guard;
  const normalize = options.normalize ?? defaultNormalize;
  const instructions =
    options.instructions ??
    'World rules, the map and character sheets are authoritative: do not rewrite them in the narrative. Describe them as they are, and request a tool call for any change the rules allow.';
  return defineDetector<TState>({
    name: options.name ?? 'field_claim',
    detect(proposal, state) {
      const index = indexFields(options.fields(state), normalize);
      if (index.size === 0) return undefined;
      return findClaims(proposal.text, asClaims, guard).flatMap((claim) => {
        const stated = claim.groups['value'];
        const claimed = stated === undefined ? (patterns[claim.pattern]?.value ?? true) : stated;
        const field = lookup(index, claim.groups['subject'], claim.groups['name'], normalize);
        if (field === undefined || agrees(field, claimed, normalize)) return [];
        const what = typeof claimed === 'boolean' ? 'it exists' : `"${claimed}"`;
        return [
          {
            expected_state_snippet: { [field.field]: field.value },
            mismatch_reason: `The text rewrites ${field.field} ("${claim.text}"): it claims ${what}, but the authoritative value is ${JSON.stringify(field.value)}`,
            instructions,
            evidence: claim.text,
          },
        ];
      });
    },
  });
}

type FieldIndex = Map<string, AuthoritativeField>;

/** Fields by `subject \0 name`; the first listed wins a key named twice. */
function indexFields(fields: readonly AuthoritativeField[], normalize: (text: string) => string): FieldIndex {
  const index: FieldIndex = new Map();
  for (const field of fields) {
    const subjects = field.subjects === undefined || field.subjects.length === 0 ? [''] : field.subjects;
    for (const subject of subjects) {
      for (const name of field.names) {
        const key = `${subject === '' ? '' : normalize(subject)}\u0000${normalize(name)}`;
        if (!index.has(key)) index.set(key, field);
      }
    }
  }
  return index;
}

/**
 * The field a claim is about: its subject and name as said, then without their leading words (or
 * Han characters), so "the old stone bridge" finds `bridge` and "守卫说艾莉亚" finds `艾莉亚`.
 */
function lookup(
  index: FieldIndex,
  subject: string | undefined,
  name: string | undefined,
  normalize: (text: string) => string,
): AuthoritativeField | undefined {
  if (name === undefined) return undefined;
  const subjects = subject === undefined ? [''] : tails(normalize(subject));
  for (const who of subjects) {
    for (const what of tails(normalize(name))) {
      const found = index.get(`${who}\u0000${what}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The text, then without its first word (or Han character), a bounded number of times. */
function tails(text: string): string[] {
  const out = [text];
  let rest = text;
  for (let i = 0; i < MAX_EXTRA_WORDS; i++) {
    const space = rest.indexOf(' ');
    const next =
      space >= 0 ? rest.slice(space + 1).trimStart() : /^\p{Script=Han}{2}/u.test(rest) ? rest.slice(1) : '';
    if (next === '') break;
    out.push(next);
    rest = next;
  }
  return out;
}

function agrees(
  field: AuthoritativeField,
  claimed: string | boolean,
  normalize: (text: string) => string,
): boolean {
  if (typeof field.value === 'boolean') return typeof claimed !== 'boolean' || claimed === field.value;
  if (typeof claimed === 'boolean') return true; // "X has always been there" says nothing of a value
  const said = normalize(claimed);
  return [field.value, ...(field.equivalents ?? [])].some((value) => normalize(value) === said);
}

function defaultNormalize(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/(?:'s|’s)$/u, '')
    .replace(/\s+/gu, ' ')
    .trim();
}
