import type { JsonValue } from '@parley/core';
import { canonicalArgs } from '../digest.js';
import { MAX_SUMMARY_LENGTH } from '../outcomes.js';

// What a prompt shows, as pure functions of the action and its summary. The person confirms what
// will run, so nothing is cut silently: the action name and a short digest always lead; a summary
// longer than MAX_SUMMARY_LENGTH ends in a visible "… N more characters" marker and is followed
// by the arguments key by key in canonical order, each value shortened on its own, so a long
// first argument cannot push a dangerous later one out of sight.

/** The action as the gate holds it. */
export interface RenderedAction {
  readonly name: string;
  readonly args: JsonValue;
  readonly digest: string;
}

/** Characters of the digest shown in a prompt. */
export const SHORT_DIGEST_LENGTH = 12;
/** At most this many argument keys are listed when a summary is shortened. */
const MAX_KEYS = 10;
const MAX_KEY_LENGTH = 40;
const MIN_VALUE_LENGTH = 30;

/**
 * The summary as a prompt shows it: `[name · digest]`, the summary (shortened visibly), and, when
 * it was shortened, the arguments key by key. Never longer than about 4 × MAX_SUMMARY_LENGTH.
 */
export function renderSummary(action: RenderedAction, summary: string, paging: boolean): string {
  const head = `[${cut(action.name, MAX_KEY_LENGTH)} · ${action.digest.slice(0, SHORT_DIGEST_LENGTH)}]`;
  // Its UTF-16 length is at least its count of code points: a short one is shown whole at once.
  if (summary.length <= MAX_SUMMARY_LENGTH) return `${head} ${summary}`;
  const chars = Array.from(summary);
  if (chars.length <= MAX_SUMMARY_LENGTH) return `${head} ${summary}`;
  const more = chars.length - MAX_SUMMARY_LENGTH;
  const hint = paging ? '; reply "more" / 「更多」 to see them' : '';
  return (
    `${head} ${chars.slice(0, MAX_SUMMARY_LENGTH).join('')}… (${more} more characters${hint})\n` +
    `Arguments: ${argumentsView(action.args)}`
  );
}

/** The whole summary and canonical arguments in pages of MAX_SUMMARY_LENGTH characters. */
export function summaryPages(action: RenderedAction, summary: string): string[] {
  const chars = Array.from(`${summary}\nArguments: ${canonicalArgs(action.args)}`);
  const pages: string[] = [];
  for (let at = 0; at < chars.length; at += MAX_SUMMARY_LENGTH) {
    pages.push(chars.slice(at, at + MAX_SUMMARY_LENGTH).join(''));
  }
  return pages.map(
    (page, i) =>
      `[${cut(action.name, MAX_KEY_LENGTH)} · ${action.digest.slice(0, SHORT_DIGEST_LENGTH)}] (${i + 1}/${pages.length}) ${page}`,
  );
}

function argumentsView(args: JsonValue): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return cut(canonicalArgs(args), MAX_SUMMARY_LENGTH);
  }
  const record = args as { readonly [key: string]: JsonValue }; // an object, checked above
  const keys = Object.keys(record).sort();
  const shown = keys.slice(0, MAX_KEYS);
  const budget = Math.max(MIN_VALUE_LENGTH, Math.floor(MAX_SUMMARY_LENGTH / shown.length));
  const parts = shown.map(
    (key) =>
      `${cut(JSON.stringify(key), MAX_KEY_LENGTH)}: ${cut(canonicalArgs(record[key] as JsonValue), budget)}`,
  );
  const rest = keys.length - shown.length;
  return `{ ${parts.join(', ')}${rest > 0 ? `, … ${rest} more keys` : ''} }`;
}

/** `text` cut to `length` code points, with a visible count of what was left out. */
function cut(text: string, length: number): string {
  if (text.length <= length) return text;
  const chars = Array.from(text);
  if (chars.length <= length) return text;
  return `${chars.slice(0, length).join('')}…(+${chars.length - length})`;
}
