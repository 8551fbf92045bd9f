// The API site as a reader meets it: built with the project's typedoc options into a temporary
// folder, then read as HTML. Guides come in reading order, titles are not repeated, and a link
// that names an export leads to that export's page.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const typedocOptions = JSON.parse(readFileSync(join(ROOT, 'typedoc.json'), 'utf8')) as {
  projectDocuments: string[];
};

let out = '';
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'parley-api-site-'));
  execFileSync(join(ROOT, 'node_modules', '.bin', 'typedoc'), ['--out', out], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}, 180_000);
afterAll(() => {
  if (out !== '') rmSync(out, { recursive: true, force: true });
});

const page = (path: string): string => readFileSync(join(out, path), 'utf8');
const headings = (html: string): string[] =>
  [...html.matchAll(/<h1[^>]*>([^<]*)/g)].map((match) => (match[1] ?? '').trim());

interface NavigationNode {
  text: string;
  kind?: number;
  path?: string;
  children?: NavigationNode[];
}

describe('the API site', () => {
  it('lists every guide, and starts with getting started before choosing between the packages', () => {
    const guides = readdirSync(join(ROOT, 'guides'))
      .filter((file) => file.endsWith('.md'))
      .map((file) => `guides/${file}`);
    expect([...typedocOptions.projectDocuments].sort()).toEqual(guides.sort());
    expect(typedocOptions.projectDocuments[0]).toBe('guides/getting-started.md');

    const script = page('assets/navigation.js');
    const data = /window\.navigationData = "([^"]+)"/.exec(script)?.[1] ?? '';
    const navigation = JSON.parse(
      inflateSync(Buffer.from(data, 'base64')).toString('utf8'),
    ) as NavigationNode[];
    const documents = navigation
      .filter((node) => node.path?.startsWith('documents/'))
      .map((node) => node.text);
    expect(documents.slice(0, 2)).toEqual(['Getting started', 'Choosing between the packages']);
    expect(documents).toHaveLength(guides.length);
  });

  it('names the project once on its index page', () => {
    expect(headings(page('index.html'))).toEqual(['Parley']);
  });

  it("shows a package's README once on its module page, without the title or the summary again", () => {
    const bus = page('modules/_parley_bus.html');
    expect(headings(bus)).toEqual(['Module @parley/bus']);
    // The README's first paragraph is there; the module comment's summary (its first words) is not.
    expect(bus).toContain('An inbound / outbound message bus for chat bots and agents.');
    expect(bus).not.toContain('An inbound / outbound message bus for chat bots: session keys');
  });

  it("leads a link that names an export to that export's page, and any other package link to the module page", () => {
    const guide = page('documents/Getting_started.html');
    // guides/getting-started.md: [`MessageBus`](../packages/protocols/bus/README.md)
    expect(guide).toMatch(
      /href="\.\.\/interfaces\/_parley_bus\.MessageBus\.html"[^>]*><code>MessageBus<\/code><\/a>/,
    );
    // README.md's package table: [`@parley/bus`](packages/protocols/bus/README.md) names the package, not an export.
    expect(page('index.html')).toMatch(
      /href="modules\/_parley_bus\.html"[^>]*><code>@parley\/bus<\/code><\/a>/,
    );
  });
});
