// Runs every ```ts snippet of the README, so the documented code stays true.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);

describe('README snippets', () => {
  it('has snippets to run', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(2);
  });

  it.each(snippets.map((code, i) => [i, code] as const))('runs snippet %i', async (i, code) => {
    const dir = mkdtempSync(join(new URL('.', import.meta.url).pathname, '.readme-'));
    const file = join(dir, `snippet-${i}.ts`);
    writeFileSync(file, code);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(file);
    } finally {
      log.mockRestore();
      (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
    }
  });
});
