// Runs reference examples: `npm run example <name> [-- --interactive]`, or every example in turn
// with `npm run demo`. Each example is a workspace package in examples/<name> with a `start` script.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = join(root, 'examples');
const available = existsSync(dir)
  ? readdirSync(dir)
      .filter((name) => existsSync(join(dir, name, 'package.json')))
      .sort()
  : [];

const args = process.argv.slice(2);
const all = args.includes('--all');
const names = all ? available : args.filter((a) => !a.startsWith('--')).slice(0, 1);
const passThrough = args.filter((a) => a.startsWith('--') && a !== '--all');

if (names.length === 0) {
  console.log(
    available.length === 0
      ? 'No reference examples yet.'
      : `Usage: npm run example <name> [-- --interactive]\nExamples: ${available.join(', ')}`,
  );
  process.exit(available.length === 0 || all ? 0 : 1);
}

// Build only the packages the chosen examples use (and what those need).
const needed = new Set();
for (const name of names.filter((n) => available.includes(n))) {
  const deps = JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8')).dependencies ?? {};
  for (const dep of Object.keys(deps)) if (dep.startsWith('@parley/')) needed.add(dep);
}
execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), ...needed], { stdio: 'inherit' });
for (const name of names) {
  if (!available.includes(name)) {
    console.error(`Unknown example "${name}". Examples: ${available.join(', ')}`);
    process.exit(1);
  }
  const manifest = JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8'));
  console.log(`\n━━ ${name}: ${manifest.description ?? ''}\n`);
  execFileSync('npm', ['run', '--silent', 'start', '--', ...passThrough], {
    cwd: join(dir, name),
    stdio: 'inherit',
  });
}
