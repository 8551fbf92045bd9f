// Runs the README's snippet as written and holds its printed values to its comments.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureLogs } from '../../../../tests/support/readme-block.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const snippet = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';

describe('README', () => {
  const logged = captureLogs();

  it('plays, replays a duplicate, resumes after a restart, rolls back and undoes as the comments say', async () => {
    const dir = mkdtempSync(join(new URL('.', import.meta.url).pathname, '.readme-'));
    const file = join(dir, 'snippet.ts');
    writeFileSync(file, snippet);
    try {
      await import(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(logged).toEqual([
      ['A goblin bites you.', 17],
      [true, 17],
      [{ resumed: true, turn: 1, turnId: expect.stringMatching(/^turn_/) }],
      [17],
      [true, 20],
      [true, 17],
    ]);
  });
});
