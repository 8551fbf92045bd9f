// The README's "Test your bot offline" example: its code block is test/readme/offline.ts from the
// first import down, it runs here as a whole program (the real Chat SDK and its Discord adapter
// against the exported stand-in), and its install line names every package it imports.
import { expect, it } from 'vitest';
import {
  describeReadmeExample,
  importedPackages,
  readmeSectionBlock,
} from '../../../../tests/support/readme-block.js';
import { settledFetch } from '../src/testing.js';

const readme = new URL('../README.md', import.meta.url);

describeReadmeExample({
  heading: 'Test your bot offline',
  readme,
  example: new URL('./readme/offline.ts', import.meta.url),
  run: async () => {
    const realFetch = globalThis.fetch;
    globalThis.fetch = settledFetch(realFetch); // the Discord adapter's fetch, without a lingering abort listener
    try {
      await import('./readme/offline.js');
    } finally {
      globalThis.fetch = realFetch;
    }
  },
  printed: [[['pong']]],
  maxStatements: 12,
});

it('imports the Chat SDK, its Discord adapter and memory state, and @parley/chat-sdk', () => {
  expect(importedPackages(readmeSectionBlock(readme, '## Test your bot offline', 'ts'))).toEqual(
    ['@chat-adapter/discord', '@chat-adapter/state-memory', '@parley/chat-sdk', 'chat'].sort(),
  );
});
