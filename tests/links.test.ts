// Every relative link a reader follows resolves: in the repository (README, guides, package and
// example READMEs) and in each package's README as npm shows it, where only files in the tarball
// exist. Each package says where it lives (homepage, bugs, repository.directory).
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { brokenPackageLinks, brokenRepoLinks, linksOf } from '../scripts/check-links.mjs';

describe('links', () => {
  it('finds markdown and HTML links, but not examples inside code', () => {
    const text = '[a](./a.md) ![b](<b c.png>) <a href="../d.md">d</a> `[e](./e.md)`\n```md\n[f](./f.md)\n```';
    expect(linksOf(text)).toEqual(['./a.md', 'b c.png', '../d.md']);
  });

  it('resolve in the repository', () => {
    expect(brokenRepoLinks()).toEqual([]);
  });

  it('resolve inside each package tarball, and every package names its homepage, bugs and directory', () => {
    expect(brokenPackageLinks()).toEqual([]);
  }, 120_000);
});
