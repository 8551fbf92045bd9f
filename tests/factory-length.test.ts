// Issue 37: long factories are cut into named steps, so no exported `createX` in packages/*/*/src runs
// over MAX_FACTORY_LINES lines (from `export` to its closing brace, TSDoc not counted), except one
// allowlisted below with the reason it is still long. An entry is capped at its length, so it cannot
// grow; a test fails for an entry that is no longer over.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageFolders } from '../scripts/packages.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_FACTORY_LINES = 100;

/**
 * `path#name` → its length today and why it is still long. Empty: every factory is cut (issue 37). A
 * factory that must stay long is listed here with its reason and capped at its length.
 */
const LONG_FACTORIES: Readonly<Record<string, { readonly lines: number; readonly why: string }>> = {};

interface Factory {
  readonly key: string;
  readonly lines: number;
}

/** Each exported `createX` function (declaration, or a const holding an arrow or function expression). */
function exportedFactories(path: string, text: string): Factory[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const span = (node: ts.Node): number =>
    source.getLineAndCharacterOfPosition(node.getEnd()).line -
    source.getLineAndCharacterOfPosition(node.getStart(source)).line +
    1;
  const found: Factory[] = [];
  const add = (name: string, node: ts.Node): void => {
    if (/^create[A-Z0-9]/.test(name)) found.push({ key: `${path}#${name}`, lines: span(node) });
  };
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement)
      ? (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exported) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name && statement.body)
      add(statement.name.text, statement);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (
          ts.isIdentifier(declaration.name) &&
          init &&
          (ts.isArrowFunction(init) || ts.isFunctionExpression(init))
        )
          add(declaration.name.text, statement);
      }
    }
  }
  return found;
}

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(path);
    }
  };
  for (const { dir } of packageFolders()) walk(join(dir, 'src'));
  return files.sort();
}

const rel = (path: string): string => relative(ROOT, path).split('\\').join('/');
const factories = sourceFiles().flatMap((file) => exportedFactories(rel(file), readFileSync(file, 'utf8')));

describe('factory length', () => {
  it('measures exported createX functions and consts from export to closing brace', () => {
    const text = [
      '/** Docs are not counted. */',
      'export function createA(): number {',
      '  return 1;',
      '}',
      'function createHidden(): void {}',
      'export const createB = (): number =>',
      '  2;',
      'export function makeC(): void {}',
    ].join('\n');
    expect(exportedFactories('x.ts', text)).toEqual([
      { key: 'x.ts#createA', lines: 3 },
      { key: 'x.ts#createB', lines: 2 },
    ]);
  });

  it(`keeps every exported createX in packages/*/*/src within ${MAX_FACTORY_LINES} lines, or its allowlisted cap`, () => {
    const over = factories
      .filter(({ key, lines }) => lines > (LONG_FACTORIES[key]?.lines ?? MAX_FACTORY_LINES))
      .map(
        ({ key, lines }) => `${key}: ${lines} lines (cap ${LONG_FACTORIES[key]?.lines ?? MAX_FACTORY_LINES})`,
      );
    expect(over, `factories over their cap; cut them into named steps:\n${over.join('\n')}`).toEqual([]);
  });

  it('allowlists only factories that exist and are still over the limit', () => {
    const lengths = new Map(factories.map(({ key, lines }) => [key, lines]));
    const stale = Object.keys(LONG_FACTORIES).filter((key) => (lengths.get(key) ?? 0) <= MAX_FACTORY_LINES);
    expect(stale, 'allowlist entries to remove (gone or cut):').toEqual([]);
  });
});
