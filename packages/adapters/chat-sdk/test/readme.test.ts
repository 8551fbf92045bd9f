// The README's "Test your bot offline" example: its code block is test/readme/offline.ts from the
// first import down, it runs here as a whole program (the real Chat SDK and its Discord adapter
// against the exported stand-in), and its install line names every package it imports.
import { readFileSync } from 'node:fs';
import { expect, it, vi } from 'vitest';
import { importedPackages } from '../../../../tests/support/readme-block.js';
import { settledFetch } from '../src/testing.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const EXAMPLE = readFileSync(new URL('./readme/offline.ts', import.meta.url), 'utf8');

/** The README's code block of the given language under `## Test your bot offline`. */
function block(lang: 'ts' | 'sh'): string {
  const section = README.slice(README.indexOf('\n## Test your bot offline\n'));
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section);
  if (match?.[1] === undefined) throw new Error(`No ${lang} block under "Test your bot offline"`);
  return match[1];
}

it('shows exactly the code of test/readme/offline.ts', () => {
  expect(block('ts')).toBe(EXAMPLE.slice(EXAMPLE.indexOf('\nimport ') + 1));
});

it('keeps the example at about ten lines of statements', () => {
  const statements = block('ts')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('import '));
  expect(statements.length).toBeLessThanOrEqual(12);
});

it('installs every package the example imports, and @parley/testing, which the stand-in needs', () => {
  const installed = block('sh').trim().split(/\s+/).slice(3); // npm install -D …
  expect(importedPackages(block('ts'))).toEqual(
    ['@chat-adapter/discord', '@chat-adapter/state-memory', '@parley/chat-sdk', 'chat'].sort(),
  );
  expect(installed.sort()).toEqual([...importedPackages(block('ts')), '@parley/testing'].sort());
});

it('runs as shown: the bot answers ping with pong, through the stand-in', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const realFetch = globalThis.fetch;
  globalThis.fetch = settledFetch(realFetch); // the Discord adapter's fetch, without a lingering abort listener
  try {
    await import('./readme/offline.js');
    expect(log.mock.calls).toEqual([[['pong']]]);
  } finally {
    globalThis.fetch = realFetch;
    log.mockRestore();
  }
});
