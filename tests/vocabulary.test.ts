// One vocabulary across the packages (CONTRIBUTING.md, "Vocabulary"), checked on what users see:
// the API reports (packages/<name>/api/*.api.md), which CI keeps equal to the built declarations.
// A package that drifts (a synonym for an error code, an error class named outside its ring's
// pattern, an option named differently from the same option elsewhere) fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageFolders } from '../scripts/packages.mjs';

const ROOT = join(import.meta.dirname, '..');

interface Report {
  readonly pkg: string;
  readonly file: string;
  readonly text: string;
}

const reports: Report[] = packageFolders().flatMap(({ short: pkg, dir: folder }) => {
  const dir = join(folder, 'api');
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.api.md'));
  } catch {
    return [];
  }
  return files.map((file) => ({ pkg, file, text: readFileSync(join(dir, file), 'utf8') }));
});

/** Words that mean the same as a word of the vocabulary, and the word to use instead. */
const SYNONYMS: Readonly<Record<string, string>> = {
  invalid_options: 'invalid_argument',
  invalid_option: 'invalid_argument',
  invalid_arguments: 'invalid_argument',
  bad_argument: 'invalid_argument',
  store_error: 'store_failed',
  storage_failed: 'store_failed',
  storage_error: 'store_failed',
  store_failure: 'store_failed',
  timed_out: 'timeout',
  canceled: 'cancelled',
};

/** Option names that say the same as an option of the vocabulary. */
const OPTION_SYNONYMS: Readonly<Record<string, string>> = {
  timer: 'clock',
  clockFn: 'clock',
  nowFn: 'clock',
  getNow: 'clock',
  storage: 'store',
  kv: 'store',
  idGenerator: 'generateId',
  makeId: 'generateId',
  newId: 'generateId',
  createId: 'generateId',
  abortSignal: 'signal',
  cancelSignal: 'signal',
};

/** The ring of each package whose error class carries the ring's word. */
const RING_WORD: Readonly<Record<string, string>> = {
  telegram: 'Adapter',
  slack: 'Adapter',
  feishu: 'Adapter',
  dingtalk: 'Adapter',
  'chat-sdk': 'Adapter',
  'ai-sdk': 'Bridge',
  'openai-agents': 'Bridge',
  langgraph: 'Bridge',
  mcp: 'Bridge',
  redis: 'Store',
  postgres: 'Store',
};

/** The package's name as a class prefix, where PascalCase of the folder is not the product's name. */
const PREFIX: Readonly<Record<string, readonly string[]>> = {
  'ai-sdk': ['AiSdk'],
  'chat-sdk': ['ChatSdk'],
  dingtalk: ['DingTalk'],
  langgraph: ['LangGraph'],
  // Agents JS is "OpenAI Agents"; its users know it as Agents.
  'openai-agents': ['Agents'],
  // Core holds the error every other one extends, and the kernel's.
  core: ['Core', 'Kernel', 'Parley'],
  // The Restate SDK exports its own `RestateError`; a user imports both in one file.
  restate: ['ParleyRestate'],
};

const pascal = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());

describe('the vocabulary', () => {
  it('is checked on every package', () => {
    const withReports = new Set(reports.map((report) => report.pkg));
    const packages = packageFolders().map(({ short }) => short);
    expect([...withReports].sort()).toEqual(packages.sort());
  });

  it('uses one word for each error and refusal code', () => {
    const drift: string[] = [];
    for (const { pkg, text } of reports) {
      for (const match of text.matchAll(/export const (\w+_CODES): readonly \[([^\]]*)\]/g)) {
        const codes = [...(match[2] ?? '').matchAll(/"([^"]+)"/g)].map((code) => code[1] ?? '');
        for (const code of codes) {
          if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(code))
            drift.push(`${pkg} ${match[1]}: "${code}" is not snake_case`);
          const word = SYNONYMS[code];
          if (word !== undefined) drift.push(`${pkg} ${match[1]}: "${code}" — the word is "${word}"`);
        }
        if (new Set(codes).size !== codes.length) drift.push(`${pkg} ${match[1]}: a code is listed twice`);
      }
    }
    expect(drift).toEqual([]);
  });

  it('names each error class after its package and ring', () => {
    const drift: string[] = [];
    for (const { pkg, text } of reports) {
      for (const match of text.matchAll(/export class (\w+) extends (\w+)/g)) {
        const name = match[1] ?? '';
        const prefixes = PREFIX[pkg] ?? [pascal(pkg)];
        const allowed = prefixes.map((prefix) => `${prefix}${RING_WORD[pkg] ?? ''}Error`);
        if (!allowed.includes(name)) drift.push(`${pkg}: ${name} — expected ${allowed.join(' or ')}`);
      }
    }
    expect(drift).toEqual([]);
  });

  it('calls the same option by the same name', () => {
    const drift: string[] = [];
    for (const { pkg, text } of reports) {
      for (const match of text.matchAll(/export interface (\w*Options)\b[^{]*\{([^}]*)\}/g)) {
        for (const member of (match[2] ?? '').matchAll(/readonly (\w+)\??:/g)) {
          const word = OPTION_SYNONYMS[member[1] ?? ''];
          if (word !== undefined) drift.push(`${pkg} ${match[1]}.${member[1]} — the word is "${word}"`);
        }
      }
    }
    expect(drift).toEqual([]);
  });
});
