// Runs every ```ts snippet of the README, so the guide for test authors stays true; a
// "// value" comment after console.log is asserted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatWithOptions } from 'node:util';
import { describe, expect, it, vi } from 'vitest';

const readme = await import('node:fs').then((fs) =>
  fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8'),
);
const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);

describe('README snippets', () => {
  it('has the guide snippets', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(5);
  });

  it.each(snippets.map((code, i) => [i, code] as const))(
    'runs snippet %i and prints what it says',
    async (i, code) => {
      const expected = [...code.matchAll(/console\.log\(.*\);\s*\/\/\s*(.*)$/gm)].map((m) => m[1]);
      const dir = mkdtempSync(join(new URL('.', import.meta.url).pathname, '.readme-'));
      const file = join(dir, `snippet-${i}.ts`);
      writeFileSync(file, code);
      const printed: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
        printed.push(formatWithOptions({}, ...args));
      });
      try {
        await import(file);
      } finally {
        log.mockRestore();
        rmSync(dir, { recursive: true, force: true });
      }
      expect(printed).toEqual(expected);
    },
  );
});
