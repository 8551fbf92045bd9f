import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from './catalogue.js';

const root = join(import.meta.dirname, '..', '..');

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(path));
    else if (entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

describe('reliability catalogue', () => {
  const sources = [
    ...testFiles(join(root, 'tests')),
    ...testFiles(join(root, 'packages')),
    ...testFiles(join(root, 'examples')),
  ]
    .filter((file) => !file.endsWith('traceability.test.ts'))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');

  it('has unique ids', () => {
    const ids = CATALOGUE.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has every case cited by at least one test', () => {
    const cited = new Set<string>();
    for (const call of sources.matchAll(/\bcite\(([^)]*)\)/g)) {
      for (const id of (call[1] ?? '').matchAll(/'([A-Z]+-\d+)'/g)) cited.add(id[1] as string);
    }
    for (const tag of sources.matchAll(/\[([A-Z]+-\d+)\]/g)) cited.add(tag[1] as string);
    expect(CATALOGUE.filter((c) => !cited.has(c.id)).map((c) => c.id)).toEqual([]);
  });
});

describe("the README's catalogue figures", () => {
  const LABELS: Record<string, string> = { envelope: 'envelopes', json: 'untrusted JSON' };

  it('state the number of cases and the count of every area', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const row = readme.split('\n').find((line) => line.startsWith('| catalogue cases, each cited by a test'));
    const counts = new Map<string, number>();
    for (const c of CATALOGUE) counts.set(c.area, (counts.get(c.area) ?? 0) + 1);
    const areas = [...counts].sort((a, b) => b[1] - a[1]).map(([area, n]) => `${LABELS[area] ?? area} ${n}`);
    expect(row).toBe(
      `| catalogue cases, each cited by a test (${areas.join(', ')}) | ${CATALOGUE.length} | \`npx vitest run tests/reliability/traceability.test.ts\` |`,
    );
  });
});
