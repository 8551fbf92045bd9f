import type { ValidationIssue } from '@parley/core';

/**
 * The caps on what the package writes back from a peer's input: a `missing_fields` reply lists at
 * most `maxIssues` issues and `maxMissingFields` field paths, within `maxBytes` of UTF-8 for the
 * two lists, each path and message cut to `maxTextLength` characters; refusals keep to the same
 * counts, and every value echoed into a message is cut to `maxTextLength`.
 *
 * A reply is therefore at most about 40 KiB whatever it answers, so it always decodes under
 * {@link DEFAULT_ENVELOPE_LIMITS}. What is left out is counted in the reply's `omitted` field and
 * named by a last issue, `{ path: '', message: 'and N more issues, M more missing fields not listed' }`.
 *
 * @example
 * ```ts
 * import { REPLY_LIMITS } from '@parley/envelope';
 *
 * console.log(REPLY_LIMITS.maxIssues, REPLY_LIMITS.maxBytes); // 50 32768
 * ```
 */
export const REPLY_LIMITS = {
  maxIssues: 50,
  maxMissingFields: 50,
  maxTextLength: 256,
  maxBytes: 32 * 1024,
} as const;

/** Cuts `text` to `REPLY_LIMITS.maxTextLength` characters, ending in `…` when cut, never halving a surrogate pair. */
export function clip(text: string, max: number = REPLY_LIMITS.maxTextLength): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // keep a pair whole: drop its first half
  return `${text.slice(0, end)}…`;
}

/** How many issues and missing fields a bounded list left out. */
export interface Omitted {
  readonly issues: number;
  readonly missing_fields: number;
}

/** A validation failure cut to {@link REPLY_LIMITS}, with what was left out. */
export interface BoundedFailure {
  readonly issues: readonly ValidationIssue[];
  readonly missingFields: readonly string[];
  readonly omitted?: Omitted;
}

/**
 * Keeps the first issues and missing fields that fit the reply limits (count and bytes), with
 * their texts clipped. Linear in what it keeps, not in what it is given: it stops at the caps.
 */
export function boundFailure(failure: {
  readonly issues: readonly {
    readonly path?: readonly (string | number)[];
    readonly pathText: string;
    readonly message: string;
  }[];
  readonly missingFields: readonly string[];
}): BoundedFailure {
  let budget = REPLY_LIMITS.maxBytes;
  const issues: ValidationIssue[] = [];
  for (const issue of failure.issues) {
    if (issues.length === REPLY_LIMITS.maxIssues) break;
    const pathText = clip(String(issue.pathText));
    const message = clip(String(issue.message));
    const cost = jsonBytes(pathText) + jsonBytes(message) + 24; // {"path":,"message":},
    if (cost > budget) break;
    budget -= cost;
    issues.push({ path: clipPath(issue.path), pathText, message });
  }
  const missingFields: string[] = [];
  for (const field of failure.missingFields) {
    if (missingFields.length === REPLY_LIMITS.maxMissingFields) break;
    const text = clip(String(field));
    const cost = jsonBytes(text) + 1;
    if (cost > budget) break;
    budget -= cost;
    missingFields.push(text);
  }
  const omitted: Omitted = {
    issues: failure.issues.length - issues.length,
    missing_fields: failure.missingFields.length - missingFields.length,
  };
  if (omitted.issues === 0 && omitted.missing_fields === 0) return { issues, missingFields };
  return { issues, missingFields, omitted };
}

/** The last issue of a cut list: says how much was left out, so a reader never takes the list as whole. */
export function omittedMarker(omitted: Omitted): { readonly path: string; readonly message: string } {
  return {
    path: '',
    message: `and ${omitted.issues} more issues, ${omitted.missing_fields} more missing fields not listed`,
  };
}

function clipPath(path: readonly (string | number)[] | undefined): readonly (string | number)[] {
  if (path === undefined) return [];
  const kept = path.length > 64 ? path.slice(0, 64) : path;
  return kept.map((segment) => (typeof segment === 'string' ? clip(segment) : segment));
}

/** Bytes of `text` as a JSON string in UTF-8: escapes counted, surrogates at 3 bytes (an upper bound). */
function jsonBytes(text: string): number {
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20) bytes += 6;
    else if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdfff)
      bytes += 6; // a lone one is written as \udXXX
    else bytes += 3;
  }
  return bytes;
}
