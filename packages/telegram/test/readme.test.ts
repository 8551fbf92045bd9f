// The README's "Test your bot offline" example: its code block is test/readme/offline.ts from the
// first import down, it runs here as a whole program against the stand-in, and the install line
// above it names every package it imports.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { captureLogs, importedPackages } from '../../../tests/support/readme-block.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const EXAMPLE = readFileSync(new URL('./readme/offline.ts', import.meta.url), 'utf8');
const logged = captureLogs();

/** The first block of the language under the README's "Test your bot offline" heading. */
function block(lang: 'ts' | 'sh'): string {
  const section = README.slice(README.indexOf('\n## Test your bot offline\n'));
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section);
  if (match?.[1] === undefined) throw new Error(`No ${lang} block under "Test your bot offline"`);
  return match[1];
}

it('shows exactly the code of test/readme/offline.ts', () => {
  expect(block('ts')).toBe(EXAMPLE.slice(EXAMPLE.indexOf('\nimport ') + 1));
});

it('installs every package the example imports', () => {
  const installed = block('sh').trim().split(/\s+/).slice(2);
  expect(installed.sort()).toEqual(importedPackages(block('ts')));
});

it('runs as shown: the card reaches the chat, the click confirms', async () => {
  await import('./readme/offline.js');
  expect(logged).toEqual([['confirmed']]);
});
