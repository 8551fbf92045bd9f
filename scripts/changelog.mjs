// Writes the "Unreleased" section of the root CHANGELOG.md from the pending changesets in
// .changeset/*.md, grouped by package. `--check` exits 1 when CHANGELOG.md is out of date.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = join(root, '.changeset');
const START = '<!-- unreleased:start -->';
const END = '<!-- unreleased:end -->';

export function renderUnreleased() {
  const byPackage = new Map();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
    if (!match) throw new Error(`${file}: no front matter`);
    const summary = match[2].trim().replace(/\s*\n\s*/g, ' ');
    for (const line of match[1].split('\n').filter(Boolean)) {
      const entry = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
      if (!entry) throw new Error(`${file}: cannot read "${line}"`);
      const [, name, bump] = entry;
      if (!byPackage.has(name)) byPackage.set(name, []);
      byPackage.get(name).push(`- (${bump}) ${summary}`);
    }
  }
  const sections = [...byPackage]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, lines]) => `### ${name}\n\n${lines.join('\n')}`);
  return `${START}\n## Unreleased\n\n${sections.length ? sections.join('\n\n') : '_No pending changes._'}\n${END}`;
}

export function renderChangelog(current) {
  const unreleased = renderUnreleased();
  if (current.includes(START) && current.includes(END)) {
    return (
      current.slice(0, current.indexOf(START)) + unreleased + current.slice(current.indexOf(END) + END.length)
    );
  }
  return `# Changelog\n\nRelease notes of the @parley/* packages, generated from the changesets in .changeset/\n(\`npm run changelog\`). Released versions also have a CHANGELOG.md in each package.\n\n${unreleased}\n`;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const path = join(root, 'CHANGELOG.md');
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {}
  const next = renderChangelog(current);
  if (process.argv.includes('--check')) {
    if (next !== current) {
      console.error('CHANGELOG.md is out of date with .changeset/: run npm run changelog');
      process.exit(1);
    }
    console.log('CHANGELOG.md is current');
  } else {
    writeFileSync(path, next);
    console.log('CHANGELOG.md updated');
  }
}
