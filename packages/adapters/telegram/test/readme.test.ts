// The README's "Test your bot offline" example: its code block is test/readme/offline.ts from the
// first import down, its install line names every package it imports, and it runs here as a whole
// program against the stand-in: the card reaches the chat and the click confirms.
import { describeReadmeExample } from '../../../../tests/support/readme-block.js';

describeReadmeExample({
  readme: new URL('../README.md', import.meta.url),
  heading: 'Test your bot offline',
  example: new URL('./readme/offline.ts', import.meta.url),
  run: () => import('./readme/offline.js'),
  printed: [['confirmed']],
});
