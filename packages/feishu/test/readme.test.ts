// The README's "Test your bot offline" example: its code block is test/readme/example.ts from the
// first import down, it runs here as a whole program against the exported stand-in, and the
// install line above it names every package it imports.
import { readFileSync } from 'node:fs';
import { expect, it, vi } from 'vitest';
import { importedPackages } from '../../../tests/support/readme-block.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const EXAMPLE = readFileSync(new URL('./readme/example.ts', import.meta.url), 'utf8');
const SECTION = README.slice(README.indexOf('\n## Test your bot offline\n'));

/** The first code block of the given language in the section "Test your bot offline". */
function block(lang: 'ts' | 'sh'): string {
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(SECTION);
  if (match?.[1] === undefined) throw new Error(`No ${lang} block under "Test your bot offline"`);
  return match[1];
}

it('shows exactly the code of test/readme/example.ts', () => {
  expect(block('ts')).toBe(EXAMPLE.slice(EXAMPLE.indexOf('\nimport ') + 1));
});

it('installs every package the example imports', () => {
  const installed = block('sh').trim().split(/\s+/).slice(3); // npm install -D …
  expect(installed.sort()).toEqual(importedPackages(block('ts')));
});

it('keeps the test itself to about ten lines of statements', () => {
  const statements = block('ts')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('import '));
  expect(statements.length).toBeLessThanOrEqual(13);
});

it('runs as shown: the bot answers the message, and the stand-in holds what it sent', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const info = vi.spyOn(console, 'info').mockImplementation(() => {});
  try {
    await import('./readme/example.js');
    expect(log.mock.calls).toEqual([[['pong: ping']]]);
  } finally {
    log.mockRestore();
    info.mockRestore();
  }
});
