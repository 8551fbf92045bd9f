// The README's example: its code block is test/readme/example.ts from the first import down, it runs
// here as a whole program (the AI SDK's own mock model, a fake chat), and its install line names
// every package it imports.
import { readFileSync } from 'node:fs';
import { expect, it, vi } from 'vitest';
import { importedPackages } from '../../../../tests/support/readme-block.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const EXAMPLE = readFileSync(new URL('./readme/example.ts', import.meta.url), 'utf8');

/** The README's code block of the given language under `## Example…`. */
function block(lang: 'ts' | 'sh'): string {
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(README);
  if (match?.[1] === undefined) throw new Error(`No ${lang} block in the README`);
  return match[1];
}

it('shows exactly the code of test/readme/example.ts', () => {
  expect(block('ts')).toBe(EXAMPLE.slice(EXAMPLE.indexOf('\nimport ') + 1));
});

it('installs every package the example imports', () => {
  const installed = block('sh').trim().split(/\s+/).slice(2);
  expect(importedPackages(block('ts'))).toEqual(
    ['@parley/ai-sdk', '@parley/bus', '@parley/testing', 'ai', 'zod'].sort(),
  );
  expect(installed.sort()).toEqual(importedPackages(block('ts')));
});

it('runs as shown: the person answers yes in chat, the call runs once and the model answers', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import('./readme/example.js');
    expect(log.mock.calls).toEqual([['Dropped orders.', ['orders']]]);
  } finally {
    log.mockRestore();
  }
});
