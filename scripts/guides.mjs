// Keeps the guides readable where people read them (GitHub, an editor) and true to the tested code.
// Each code sample in guides/*.md follows a marker naming the regions it shows:
//
//   <!-- code: ./code/getting-started.ts#bot -->
//   ```ts
//   …the region's lines, written here by this script…
//   ```
//
// The regions live in guides/code/*.ts (`// #region bot` … `// #endregion bot`), which
// tests/guides.test.ts runs. `node scripts/guides.mjs` rewrites the samples from the regions;
// `--check` only reports the guides whose samples drifted (exit 1), as CI runs it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const GUIDES = join(ROOT, 'guides');

const MARKER = /<!-- code: (\S+?)#(\S+?) -->\n```(\w+)\n[\s\S]*?```/g;

/** The lines of `regions` (comma-separated) of a file, without nested region markers, dedented. */
export function regionText(file, regions) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  for (const region of regions.split(',')) {
    const start = lines.findIndex((l) => l.trim() === `// #region ${region}`);
    const end = lines.findIndex((l) => l.trim() === `// #endregion ${region}`);
    if (start < 0 || end < start) throw new Error(`${file}: no region "${region}"`);
    if (out.length > 0) out.push('');
    out.push(...lines.slice(start + 1, end).filter((l) => !/^\s*\/\/ #(end)?region\b/.test(l)));
  }
  const indent = Math.min(...out.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)[0].length));
  return out.map((l) => l.slice(indent)).join('\n');
}

/** A guide's text with every marked sample written from its regions. */
export function render(guide) {
  const text = readFileSync(guide, 'utf8');
  return text.replace(MARKER, (_, file, regions, lang) => {
    const code = regionText(join(dirname(guide), file), regions);
    return `<!-- code: ${file}#${regions} -->\n\`\`\`${lang}\n${code}\n\`\`\``;
  });
}

/** The guides whose samples differ from their regions. */
export function drifted() {
  return guideFiles().filter((guide) => render(guide) !== readFileSync(guide, 'utf8'));
}

export function guideFiles() {
  return readdirSync(GUIDES)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(GUIDES, f));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = drifted();
    for (const guide of stale)
      console.error(`${guide}: a code sample differs from its region; run node scripts/guides.mjs`);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  for (const guide of guideFiles()) writeFileSync(guide, render(guide));
}
