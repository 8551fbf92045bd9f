// One vocabulary across the packages (CONTRIBUTING.md, "Vocabulary"), checked on what users see:
// the API reports (packages/<name>/api/*.api.md), which CI keeps equal to the built declarations.
// A package that drifts (a synonym for an error code, an error class named outside its ring's
// pattern, an option named differently from the same option elsewhere) fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageFolders } from '../scripts/packages.mjs';

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

/** The text between the brace at `open` and the brace that closes it (both included). */
function braced(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

/** The members named at the top level of an object type's body (`{ … }`), nested objects left out. */
function topMembers(body: string): { readonly name: string; readonly deprecated: boolean }[] {
  const members: { name: string; deprecated: boolean }[] = [];
  let depth = 0;
  let comment = '';
  for (const line of body.slice(1, -1).split('\n')) {
    const member = depth === 0 ? /^\s*(?:readonly )?(\w+)\??:/.exec(line) : null;
    if (member?.[1] !== undefined) {
      members.push({ name: member[1], deprecated: comment.includes('@deprecated') });
      comment = '';
    } else if (depth === 0 && /^\s*\/\//.test(line)) comment += line;
    for (const char of line) depth += char === '{' ? 1 : char === '}' ? -1 : 0;
  }
  return members;
}

/** Each object type of a declaration: the interface's body, or each `{ … }` branch of a type's union. */
function objectBranches(text: string, from: number): string[] {
  if (text.startsWith('export interface', from)) return [braced(text, text.indexOf('{', from))];
  const branches: string[] = [];
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (char === '{' && depth === 0) branches.push(braced(text, i));
    if (char === '{') depth++;
    else if (char === '}') depth--;
    else if (char === ';' && depth === 0) break;
  }
  return branches;
}

/**
 * Names two packages export on purpose (a re-export of one symbol, never two symbols under one name),
 * each with the reason. Empty: every exported name has one home.
 */
const SHARED_NAMES: Readonly<Record<string, string>> = {};

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

  it('gives every refusal its text as `message`', () => {
    const drift: string[] = [];
    for (const { pkg, text } of reports) {
      for (const match of text.matchAll(/export (?:interface|type) (\w*Refusal)\b([^{=]*)/g)) {
        const name = match[1] ?? '';
        const base = /.*extends (?:Omit<)?(\w+)/.exec(match[2] ?? '')?.[1];
        const baseAt = base === undefined ? -1 : text.search(new RegExp(`export interface ${base}\\b`));
        const inherited = baseAt < 0 ? [] : topMembers(objectBranches(text, baseAt)[0] ?? '{}');
        for (const branch of objectBranches(text, match.index ?? 0)) {
          const members = [...topMembers(branch), ...inherited];
          if (!members.some((member) => member.name === 'message'))
            drift.push(`${pkg} ${name}: no \`message\` in ${branch.replace(/\s+/g, ' ').slice(0, 80)}`);
        }
      }
    }
    expect(drift).toEqual([]);
  });

  // API Extractor prints a member's @deprecated tag for an interface but not inside a type literal, so
  // the tag is checked on interfaces and `message` beside `reason` everywhere.
  it("keeps a refusal's `reason` only beside `message`, as a deprecated field", () => {
    const drift: string[] = [];
    for (const { pkg, text } of reports) {
      for (const match of text.matchAll(/ok: false;/g)) {
        const open = text.lastIndexOf('{', match.index);
        const members = topMembers(braced(text, open));
        const reason = members.find((member) => member.name === 'reason');
        if (reason === undefined) continue;
        const head = text.slice(text.lastIndexOf('\n', open) + 1, open);
        const where = `${pkg}: { ok: false, code, reason } near "${text.slice(open, open + 60).replace(/\s+/g, ' ')}"`;
        if (!members.some((member) => member.name === 'message')) drift.push(`${where} has no \`message\``);
        else if (head.startsWith('export interface') && !reason.deprecated)
          drift.push(`${where}: \`reason\` is not @deprecated`);
      }
    }
    expect(drift).toEqual([]);
  });

  // A deprecated alias (an old name kept one minor version next to its new home) does not count.
  it('gives every exported name one home: no two packages export the same name', () => {
    const homes = new Map<string, Set<string>>();
    for (const { pkg, text } of reports) {
      for (const match of text.matchAll(
        /^\/\/ ([^\r\n]*)\r?\nexport (?:declare )?(?:abstract )?(?:function|const|let|class|interface|type|enum|namespace) (\w+)/gm,
      )) {
        const name = match[2] ?? '';
        if ((match[1] ?? '').includes('@deprecated') || SHARED_NAMES[name] !== undefined) continue;
        homes.set(name, (homes.get(name) ?? new Set()).add(pkg));
      }
    }
    const shared = [...homes]
      .filter(([, pkgs]) => pkgs.size > 1)
      .map(([name, pkgs]) => `${name}: ${[...pkgs].join(', ')}`);
    expect(shared).toEqual([]);
  });
});
