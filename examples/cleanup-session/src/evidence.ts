// The evidence package of the cleanup flow: "explain why each target is in scope". Each target of
// the scope gets its own justification (its evidence references and statement); the exit condition
// names every target without one in `missingFields`, so the user is asked for exactly that.
import { formatPath } from '@parley/core';
import type { ExitVerdict } from '@parley/fsm';
import { z } from 'zod';

/** An evidence reference: `ev1`, `ev-2`, `ev_photo`. */
export const EvidenceRef = z.string().regex(/^ev[\w-]+$/);

/** A target's statement explains its scope in at least this many words. */
export const MIN_STATEMENT_WORDS = 5;

/** One target's justification: the evidence that shows it and why it is in scope. */
export interface Justification {
  readonly evidence_refs: readonly string[];
  readonly statement: string;
}

type Fields = { readonly [field: string]: unknown };

/**
 * Every target of the scope needs its own justification: evidence references and a statement of at
 * least five words. A target without one is named in `missingFields` (`justifications["x:2"]`, or its
 * `.statement` when the statement is too short), and references must be among `evidence_refs`.
 */
export function checkJustifications(
  fields: Fields,
  collected: { readonly [step: string]: Fields | undefined },
): ExitVerdict {
  const targets = scopeTargets(collected);
  const given = fields.justifications as Readonly<Record<string, Justification>>;
  const refs = new Set(fields.evidence_refs as readonly string[]); // the schema above checked both
  const missing: string[] = [];
  for (const target of targets) {
    const path = formatPath(['justifications', target]);
    const justification = given[target];
    if (justification === undefined) missing.push(path);
    else if (words(justification.statement) < MIN_STATEMENT_WORDS) missing.push(`${path}.statement`);
  }
  const unlisted = Object.values(given).flatMap((j) => j.evidence_refs.filter((ref) => !refs.has(ref)));
  if (missing.length > 0) {
    return { reason: `${missing.length} target(s) lack their own justification`, missingFields: missing };
  }
  return unlisted.length === 0 || `Evidence ${unlisted.join(', ')} is not in the evidence package`;
}

/** Words, counting each CJK character as one. */
export function words(text: string): number {
  const cjk = text.match(/[\u3400-\u9fff]/g)?.length ?? 0;
  const latin = text.replace(/[\u3400-\u9fff]/g, ' ').trim();
  return cjk + (latin === '' ? 0 : latin.split(/\s+/).length);
}

/** The normalised targets of the scope step, in order (none before it is complete). */
export function scopeTargets(collected: { readonly [step: string]: Fields | undefined }): string[] {
  const targets = collected['platform-scope']?.targets;
  return Array.isArray(targets) ? targets.map(String) : [];
}

/** The targets as the evidence step shows them: `#1 https://x.com/… · #2 x:1790002`. */
export function numberedTargets(targets: readonly string[]): string {
  return targets.map((target, i) => `#${i + 1} ${target}`).join(' · ');
}

/** The evidence of each target, in the scope's order, for the session JSON and the audit export. */
export function evidencePerTarget(
  targets: readonly string[],
  justifications: Readonly<Record<string, Justification>> | undefined,
): { target: string; evidence_refs: string[]; statement: string }[] {
  return targets.flatMap((target) => {
    const given = justifications?.[target];
    return given === undefined
      ? []
      : [{ target, evidence_refs: [...given.evidence_refs], statement: given.statement }];
  });
}
