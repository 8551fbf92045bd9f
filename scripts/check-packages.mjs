// Release checks on every built package: publint (package.json and files) and
// arethetypeswrong (types resolve for ESM, CJS and bundlers). Run after `npm run build`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listPackages, root } from './packages.mjs';

const bin = (name) => join(root, 'node_modules', '.bin', name);
let failed = 0;
for (const pkg of listPackages()) {
  if (!existsSync(join(pkg.dir, 'dist', 'index.js'))) {
    console.error(`✗ ${pkg.name}: not built (run npm run build)`);
    failed++;
    continue;
  }
  for (const [label, cmd, args] of [
    ['publint', bin('publint'), ['--strict', pkg.dir]],
    ['attw', bin('attw'), ['--pack', pkg.dir, '--format', 'table-flipped']],
  ]) {
    try {
      execFileSync(cmd, args, { cwd: root, stdio: 'pipe', encoding: 'utf8' });
      console.log(`✓ ${pkg.name}: ${label}`);
    } catch (error) {
      failed++;
      console.error(`✗ ${pkg.name}: ${label}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
  }
}
if (failed > 0) {
  console.error(`${failed} package check(s) failed`);
  process.exit(1);
}
