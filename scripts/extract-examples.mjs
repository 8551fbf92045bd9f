// Extracts every ```ts block inside a TSDoc @example in packages/*/src into .doc-examples/,
// one module per example, so that `npm run typecheck` compiles them and
// tests/doc-examples.test.ts runs them. Usage: node scripts/extract-examples.mjs
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { packageFolders } from './packages.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.doc-examples');

/** Returns [{ pkg, file, line, name, code }] for every example in the packages' sources. */
export function extractExamples() {
  const examples = [];
  for (const { short: pkg, dir } of packageFolders()) {
    const src = join(dir, 'src');
    if (!existsSync(src)) continue;
    for (const file of walk(src)) {
      const lines = readFileSync(file, 'utf8').split('\n');
      let inExample = false;
      let block;
      for (let i = 0; i < lines.length; i++) {
        const text = lines[i].replace(/^\s*\*\s?/, '');
        const isComment = /^\s*\*/.test(lines[i]);
        if (!isComment) {
          inExample = false;
          continue;
        }
        if (text.startsWith('@example')) inExample = true;
        else if (text.startsWith('@') && block === undefined) inExample = false;
        if (!inExample) continue;
        if (block === undefined && /^```(ts|typescript)\s*$/.test(text)) block = { start: i + 1, lines: [] };
        else if (block !== undefined && text.startsWith('```')) {
          const name = `${basename(file, '.ts')}-L${block.start}`;
          examples.push({
            pkg,
            file: file.slice(root.length),
            line: block.start,
            name,
            code: block.lines.join('\n'),
          });
          block = undefined;
          inExample = false;
        } else if (block !== undefined) block.lines.push(text);
      }
    }
  }
  return examples;
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

export function writeExamples() {
  rmSync(out, { recursive: true, force: true });
  const examples = extractExamples();
  for (const example of examples) {
    mkdirSync(join(out, example.pkg), { recursive: true });
    const header = `// Extracted from ${example.file}:${example.line}. Do not edit: run scripts/extract-examples.mjs.\n`;
    writeFileSync(join(out, example.pkg, `${example.name}.ts`), `${header}${example.code}\nexport {};\n`);
  }
  return examples;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const examples = writeExamples();
  process.stdout.write(`extracted ${examples.length} examples into .doc-examples/\n`);
}
