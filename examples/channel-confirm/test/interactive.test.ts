// The interactive CLI as a person uses it (`npm run example channel-confirm -- --interactive`):
// typed lines in, transcript out. Its own commands must keep working whatever the confirmed SQL
// did to the database.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = new URL('..', import.meta.url).pathname;
const tsx = join(dir, '..', '..', 'node_modules', '.bin', 'tsx');

describe('channel-confirm --interactive', () => {
  it('answers /table after a confirmed DROP TABLE with why the table cannot be read, and keeps running', () => {
    const result = spawnSync(tsx, ['src/main.ts', '--interactive'], {
      cwd: dir,
      input: 'sql: DROP TABLE orders\n确认\n/table\n/quit\n',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('tool: data_modify ran → DROP');
    expect(result.stdout).toContain(
      '(the orders table cannot be read: relation "shop.orders" does not exist;',
    );
    expect(result.status).toBe(0);
  }, 60_000);
});
