// Builds the API docs of some packages only, into a temporary folder, with the same strictness
// as `npm run docs` (warnings are errors). Usage: node scripts/docs-check.mjs fsm [envelope …]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packagePath } from './packages.mjs';

const root = new URL('..', import.meta.url).pathname;
const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('Usage: node scripts/docs-check.mjs <package> [package…]');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'parley-docs-'));
try {
  const tsconfig = join(dir, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: { types: [] },
      include: names.map((n) => join(root, packagePath(n), 'src')),
    }),
  );
  const options = JSON.parse(
    execFileSync(
      'node',
      ['-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(join(root, 'typedoc.json'))})))`],
      {
        encoding: 'utf8',
      },
    ),
  );
  // Keep only the intentionally-unexported names that the chosen packages define.
  const sources = names.map((n) => join(root, packagePath(n), 'src'));
  options.intentionallyNotExported = (options.intentionallyNotExported ?? []).filter((symbol) =>
    sources.some((dir) => {
      try {
        execFileSync('grep', ['-rqE', `(type|function|const) ${symbol}\\b`, dir]);
        return true;
      } catch {
        return false;
      }
    }),
  );
  options.plugin = (options.plugin ?? []).map((plugin) =>
    plugin.startsWith('.') ? join(root, plugin) : plugin,
  );
  Object.assign(options, {
    entryPoints: names.map((n) => join(root, packagePath(n), 'src', 'index.ts')),
    tsconfig,
    out: join(dir, 'out'),
    readme: 'none',
    projectDocuments: [],
  });
  delete options.$schema;
  const optionsFile = join(dir, 'typedoc.json');
  writeFileSync(optionsFile, JSON.stringify(options));
  execFileSync(join(root, 'node_modules', '.bin', 'typedoc'), ['--options', optionsFile], {
    cwd: root,
    stdio: 'inherit',
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
