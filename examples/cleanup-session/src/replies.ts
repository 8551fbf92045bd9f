// What the user typed → the fields a step asks for. These readers only extract; they never judge or
// fill in a missing fact (the flow's schemas and exit conditions do the judging). A reply that lacks
// a field leaves it out, so the flow reports it in `missingFields` and asks for it.
import type { JsonValue } from '@parley/core';
import { DEFAULT_VOCABULARY_WORDS, defineVocabulary, parseReply } from '@parley/confirm';
import type { CleanupStep, GoalType } from './flow.js';
import { platformNamed } from './targets.js';

export type Fields = Record<string, JsonValue>;

/** Steps whose failed answers are kept as a draft, so the next reply only has to add what was missing. */
export const SLOT_FILLING_STEPS: readonly CleanupStep[] = ['goal', 'auth', 'evidence', 'export-decision'];

/** Yes/no words from @parley/confirm, plus the ways people say "go" to an execution prompt. */
const GO_WORDS = ['proceed', 'go', 'go ahead', 'run it', 'execute now', '开始'];
const TRIGGER_VOCABULARY = defineVocabulary({
  ...DEFAULT_VOCABULARY_WORDS,
  confirm: [...DEFAULT_VOCABULARY_WORDS.confirm, ...GO_WORDS],
});

const GOAL_KEYWORDS: readonly [RegExp, GoalType][] = [
  [/dmca|takedown|copyright|infring|侵权/i, 'dmca_takedown'],
  [/delist|unlist|下架/i, 'delist'],
  [/complain|complaint|report|投诉/i, 'complaint'],
  [/remind|提醒/i, 'reminder'],
  [/delete|remove|erase|删除/i, 'delete'],
];

/** Words between platforms and targets that are neither. */
const FILLER = new Set('and or on in the plus also platform platforms target targets'.split(' '));

/**
 * Reads a reply for the current step (and part). `draft` is the previous, failed answer of the same
 * step: replies like "yes" then fill the field that was asked for.
 */
export function readAnswer(
  step: CleanupStep,
  part: number,
  text: string,
  context: {
    readonly draft?: Fields | undefined;
    readonly planRef?: string | undefined;
    /** The normalised targets of the scope, in order (the evidence step's `#N` markers). */
    readonly targets?: readonly string[] | undefined;
  } = {},
): Fields {
  switch (step) {
    case 'goal':
      return readGoal(text);
    case 'platform-scope':
      return readScope(text);
    case 'auth':
      return readAuth(text);
    case 'evidence':
      return readEvidence(text, context.targets ?? [], context.draft);
    case 'risk-confirm':
      return { [`confirm${part + 1}`]: text };
    case 'export-decision':
      return readExport(text, context.draft);
    case 'execute':
      return {
        manual_trigger: parseReply(firstClause(text), TRIGGER_VOCABULARY) === 'confirm',
        execution_plan_ref: context.planRef ?? '',
      };
    case 'notify':
      return readNotify(text);
    case 'close':
      return readClose(text);
  }
}

export const EXECUTE_COMMAND_HINT =
  'Reply "retry" to run the remaining targets again, or "manual" to hand them to the manual-execution queue.';

/** After a failed execution: "retry" runs the rest again, "manual" hands it over; anything else is neither. */
export function readExecuteCommand(text: string): 'retry' | 'manual' | undefined {
  const word = firstClause(text).toLowerCase();
  if (/^(retry|try again|again|重试)$/.test(word)) return 'retry';
  if (/^(manual|manually|hand over|人工)$/.test(word)) return 'manual';
  return undefined;
}

/** What to type at each step, for the interactive mode. */
export const HINTS: Readonly<Record<CleanupStep, string>> = {
  goal: 'e.g. DMCA takedown: remove the reposts of my photos on X',
  'platform-scope': 'e.g. x https://x.com/reposter/status/1790001 x:1790002',
  auth: 'e.g. oauth vault://demo/x-report consent   (or: none, I consent — only where no login is needed)',
  evidence:
    'e.g. #1 ev1 This repost copies my harbour photo without a license. #2 ev2 This one copies my sunset photo. I confirm this is authentic.',
  'risk-confirm': 'type YES exactly',
  'export-decision': 'yes / no / ask (then yes or no)',
  execute: 'proceed — or, after a failure, retry / manual',
  notify: 'none / telegram / email / signal',
  close: 'e.g. yes, export the audit and remind me in 7 days',
};

function readGoal(text: string): Fields {
  const type = GOAL_KEYWORDS.find(([pattern]) => pattern.test(text))?.[1];
  const summary = text.replace(/^\s*[\w ]{1,20}:\s*/, '').trim();
  return {
    ...(type === undefined ? {} : { goal_type: type }),
    ...(summary === '' ? {} : { intent_summary: summary }),
  };
}

function readScope(text: string): Fields {
  const platforms: string[] = [];
  const targets: string[] = [];
  for (const raw of text.split(/[\s,;]+/)) {
    const token = raw.replace(/[:.]+$/, '');
    if (token === '' || FILLER.has(token.toLowerCase())) continue;
    if (!/[.:/]/.test(token) && platformNamed(token) !== undefined) platforms.push(token);
    else targets.push(token);
  }
  return { platforms, targets };
}

function readAuth(text: string): Fields {
  const mode = /\b(none|oauth|token|session)\b/i.exec(text)?.[1]?.toLowerCase();
  const credential = /vault:\/\/[^\s,;]+/i.exec(text)?.[0]?.replace(/[.)]+$/, '');
  const proof = /\bproof:[^\s,;]+/i.exec(text)?.[0]?.replace(/[.)]+$/, '');
  const consent = /\b(consent|agree|i authori[sz]e)\b|同意/i.test(text);
  return {
    ...(mode === undefined ? {} : { auth_mode: mode }),
    ...(credential === undefined ? {} : { credential_ref: credential }),
    ...(proof === undefined ? {} : { session_proof: proof }),
    ...(consent ? { consent_ack: true } : {}),
  };
}

const ACK = /\b(i confirm|authentic|is true)\b|属实/i;
const EVIDENCE_REF = /^ev[-_]?\d[\w-]*$/i;

/**
 * Reads the evidence package: each target's own references and statement, marked by its number in
 * the list the bot showed (`#2`) or by the target itself. A reply that marks no target speaks for the
 * only target of the scope; with several, nothing is guessed. The draft's justifications are kept,
 * so a reply only has to add the targets that were missing.
 */
function readEvidence(text: string, targets: readonly string[], draft: Fields | undefined): Fields {
  const sentences = text.split(/(?<=[.!?。])\s+/);
  const body = sentences.filter((sentence) => !ACK.test(sentence)).join(' ');
  const kept = draft?.justifications;
  const justifications: Record<string, JsonValue> = isObject(kept) ? { ...kept } : {};
  const refs = new Set(Array.isArray(draft?.evidence_refs) ? draft.evidence_refs.map(String) : []);
  for (const { target, text: said } of segmentsByTarget(body, targets)) {
    const own = said.split(/[\s,;]+/).filter((token) => EVIDENCE_REF.test(token));
    const statement = said
      .split(/\s+/)
      .filter((token) => !EVIDENCE_REF.test(token.replace(/[,;]$/, '')))
      .join(' ')
      .replace(/^[\s:;,.—-]+|[\s;,—-]+$/g, '');
    for (const ref of own) refs.add(ref.toLowerCase());
    if (target === undefined || (own.length === 0 && statement === '')) continue;
    justifications[target] = {
      ...(own.length === 0 ? {} : { evidence_refs: own.map((ref) => ref.toLowerCase()) }),
      ...(statement === '' ? {} : { statement }),
    };
  }
  return {
    ...(refs.size === 0 ? {} : { evidence_refs: [...refs] }),
    justifications,
    ...(sentences.some((sentence) => ACK.test(sentence)) ? { user_statement_authenticity_ack: true } : {}),
  };
}

/** The text split at each target marker (`#N` or the target); text before the first one has none. */
function segmentsByTarget(
  text: string,
  targets: readonly string[],
): { readonly target: string | undefined; readonly text: string }[] {
  const marks: { at: number; end: number; target: string }[] = [];
  targets.forEach((target, index) => {
    const pattern = new RegExp(`(?<![\\w#])(?:#${index + 1}(?!\\d)|${escapeRegExp(target)}(?![\\w/]))`, 'g');
    for (const found of text.matchAll(pattern)) {
      marks.push({ at: found.index, end: found.index + found[0].length, target });
    }
  });
  marks.sort((a, b) => a.at - b.at);
  if (marks.length === 0) return [{ target: targets.length === 1 ? targets[0] : undefined, text }];
  const first = marks[0] as (typeof marks)[number];
  const out: { target: string | undefined; text: string }[] = [
    { target: undefined, text: text.slice(0, first.at) },
  ];
  marks.forEach((mark, i) => {
    out.push({ target: mark.target, text: text.slice(mark.end, marks[i + 1]?.at ?? text.length) });
  });
  return out;
}

function isObject(value: JsonValue | undefined): value is { readonly [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function readExport(text: string, draft: Fields | undefined): Fields {
  const ask = /^\s*ask\b[\s,:;—-]*/i.exec(text);
  if (ask === null && draft?.export_before_delete === 'ask') {
    const answer = yesNo(text);
    return answer === undefined ? {} : { export_answer: answer };
  }
  if (ask !== null) {
    const answer = yesNo(text.slice(ask[0].length));
    return { export_before_delete: 'ask', ...(answer === undefined ? {} : { export_answer: answer }) };
  }
  const choice = yesNo(text);
  return choice === undefined ? {} : { export_before_delete: choice };
}

function readNotify(text: string): Fields {
  const word = firstClause(text).toLowerCase().split(/\s+/)[0] ?? '';
  return { notify_mode: parseReply(word) === 'cancel' ? 'none' : word };
}

function readClose(text: string): Fields {
  const noAudit = /\bno (audit|export)\b|\bwithout (an? )?(audit|export)\b/i.test(text);
  const audit = !noAudit && (/\b(audit|export)\b/i.test(text) || parseReply(firstClause(text)) === 'confirm');
  const remind = /remind(?:er)?\D*(\d+)\s*(day|week)/i.exec(text);
  const days =
    remind === null ? undefined : Number(remind[1]) * (remind[2]?.toLowerCase() === 'week' ? 7 : 1);
  const noFollowup = /\bno (follow-?up|reminder)s?\b/i.test(text);
  return {
    close_ack: true,
    audit_export: audit,
    ...(days !== undefined ? { followup_preference: `remind_in_${days}d` } : {}),
    ...(days === undefined && noFollowup ? { followup_preference: 'none' } : {}),
  };
}

function yesNo(text: string): 'yes' | 'no' | undefined {
  const verdict = parseReply(firstClause(text));
  return verdict === 'confirm' ? 'yes' : verdict === 'cancel' ? 'no' : undefined;
}

function firstClause(text: string): string {
  return text.split(/[,;:.!—]/)[0]?.trim() ?? '';
}
