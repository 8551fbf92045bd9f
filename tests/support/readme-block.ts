// What a package's readme.test.ts needs to hold its README's first code block to a tested region.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** The first `ts` block of the README at `readme`, without its import lines. */
export function readmeFirstBlock(readme: URL): string {
  const text = readFileSync(readme, 'utf8');
  const match = /```ts\n([\s\S]*?)```/.exec(text);
  if (match?.[1] === undefined) throw new Error(`No ts block in ${readme.pathname}`);
  return match[1]
    .split('\n')
    .filter((line) => !line.startsWith('import '))
    .join('\n')
    .trim();
}

/** The code between `// #region <name>` and `// #endregion` in the file at `file`, unindented once. */
export function regionOf(file: URL, name: string): string {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`// #region ${name}\n`);
  const end = text.indexOf('  // #endregion', start);
  return text
    .slice(start, end)
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/^ {2}/, ''))
    .join('\n')
    .trim();
}

/** Every `console.log` call of each test, captured (and kept off the output). */
export function captureLogs(): unknown[][] {
  const logged: unknown[][] = [];
  beforeEach(() => {
    logged.length = 0;
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => logged.push(args));
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return logged;
}

/**
 * The packages a README program imports, sorted: `ai/test` is the package `ai`, `@scope/name/x`
 * is `@scope/name`; relative and `node:` imports are not packages to install.
 */
export function importedPackages(code: string): string[] {
  const specifiers = [...code.matchAll(/^import [^;]*? from '([^'.][^']*)';$/gm)].map(
    (match) => match[1] ?? '',
  );
  const names = specifiers
    .filter((specifier) => !specifier.startsWith('node:'))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  return [...new Set(names)].sort();
}

/** The first `lang` code block under the heading line `heading` (`## …`) of the README at `readme`. */
export function readmeSectionBlock(readme: URL, heading: string, lang: 'ts' | 'sh'): string {
  const text = readFileSync(readme, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`No "${heading}" in ${readme.pathname}`);
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(start));
  if (match?.[1] === undefined) throw new Error(`No ${lang} block under "${heading}" in ${readme.pathname}`);
  return match[1];
}

/**
 * Checks a README section's example as a package's readme.test.ts does: the first `ts` block under
 * `## <heading>` is the program at `example` from its first import down, the `sh` block above it
 * installs every package the program imports (and `@parley/testing`, the optional peer a `/testing`
 * stand-in needs), the program keeps to `maxStatements` lines of statements when that is given,
 * and it prints `printed` (one array of `console.log` arguments per call) when run by `run` (its
 * dynamic import), with the SDKs' own `console.info` announcements kept off the output.
 */
export function describeReadmeExample(options: {
  readonly readme: URL;
  readonly heading: string;
  readonly example: URL;
  readonly run: () => Promise<unknown>;
  readonly printed: readonly unknown[][];
  /** The most lines of statements (not blank, not imports) the example may hold; unchecked if not given. */
  readonly maxStatements?: number;
}): void {
  const block = (lang: 'ts' | 'sh'): string =>
    readmeSectionBlock(options.readme, `## ${options.heading}`, lang);
  describe(`README: ${options.heading}`, () => {
    it('shows exactly the code of its example program', () => {
      const program = readFileSync(options.example, 'utf8');
      expect(block('ts')).toBe(program.slice(program.indexOf('\nimport ') + 1));
    });
    it('installs every package the example imports, and @parley/testing for a stand-in', () => {
      const installed = block('sh')
        .trim()
        .split(/\s+/)
        .slice(2)
        .filter((word) => word !== '-D'); // npm install [-D] …
      const needed = new Set(importedPackages(block('ts')));
      // a `/testing` stand-in needs @parley/testing, its package's optional peer
      if (/from '@parley\/[a-z-]+\/testing'/.test(block('ts'))) needed.add('@parley/testing');
      expect(installed.sort()).toEqual([...needed].sort());
    });
    const { maxStatements } = options;
    if (maxStatements !== undefined) {
      it(`keeps the example to ${maxStatements} lines of statements at most`, () => {
        const statements = block('ts')
          .split('\n')
          .filter((line) => line.trim() !== '' && !line.startsWith('import '));
        expect(statements.length).toBeLessThanOrEqual(maxStatements);
      });
    }
    it('runs as shown and prints what its comments say', async () => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      const info = vi.spyOn(console, 'info').mockImplementation(() => {}); // the SDKs' own announcements
      try {
        await options.run();
        expect(log.mock.calls).toEqual(options.printed);
      } finally {
        log.mockRestore();
        info.mockRestore();
      }
    });
  });
}

/**
 * Runs every `ts` block of the README at `readme` as a module written next to the test (`dir`), so
 * the documented code stays true; at least `atLeast` blocks must be there.
 */
export function describeReadmeSnippets(options: {
  readonly readme: URL;
  readonly dir: URL;
  readonly atLeast: number;
}): void {
  const snippets = [...readFileSync(options.readme, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map(
    (match) => match[1] as string,
  );
  describe('README snippets', () => {
    it('has snippets to run', () => {
      expect(snippets.length).toBeGreaterThanOrEqual(options.atLeast);
    });

    it.each(snippets.map((code, i) => [i, code] as const))('runs snippet %i', async (i, code) => {
      const dir = mkdtempSync(join(options.dir.pathname, '.readme-'));
      const file = join(dir, `snippet-${i}.ts`);
      writeFileSync(file, code);
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      try {
        await import(file);
      } finally {
        log.mockRestore();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
