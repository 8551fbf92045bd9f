// The README shows a screenshot by its address on GitHub; the file behind that address is in the repository.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const here = join(import.meta.dirname, '..');
const PREFIX = 'https://raw.githubusercontent.com/parley-sdk/parley/main/';

describe('the README screenshot', () => {
  it('points at a PNG kept in the repository', () => {
    const readme = readFileSync(join(here, 'README.md'), 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1] ?? '');
    expect(images.length).toBeGreaterThan(0);
    for (const url of images) {
      expect(url.startsWith(PREFIX)).toBe(true);
      const file = join(here, '..', '..', '..', url.slice(PREFIX.length));
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG');
    }
  });
});
