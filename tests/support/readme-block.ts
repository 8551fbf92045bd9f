// What a package's readme.test.ts needs to hold its README's first code block to a tested region.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, vi } from 'vitest';

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
