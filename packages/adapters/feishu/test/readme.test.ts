// The README's "Test your bot offline" example: its code block is test/readme/example.ts from the
// first import down, it runs here as a whole program against the exported stand-in (the real Lark SDK),
// and the install line above it names every package it imports.
import { describeReadmeExample } from '../../../../tests/support/readme-block.js';

describeReadmeExample({
  heading: 'Test your bot offline',
  readme: new URL('../README.md', import.meta.url),
  example: new URL('./readme/example.ts', import.meta.url),
  run: () => import('./readme/example.js'),
  printed: [[['pong: ping']]],
  maxStatements: 13,
});
