// `--engine restate`: the team's protocols on a real Restate server from node_modules, two app
// processes behind one address, and the one the lead's wait runs on killed mid-wait.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runOnRestate } from '../src/restate/run.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('team-protocols --engine restate', () => {
  beforeAll(() => {
    // The app processes import @parley/restate from its build, as `npm run example` gives them.
    execFileSync(process.execPath, [`${root}scripts/build.mjs`, '@parley/restate'], { stdio: 'ignore' });
  });

  it('runs the scenarios on the server, and the surviving app process finishes the killed one’s wait exactly once', async () => {
    const { lines, skipped } = await runOnRestate();
    if (skipped !== undefined) {
      // No server binary for this platform: the run says so and does nothing else.
      expect(lines).toEqual([`skipped: ${skipped}`]);
      return;
    }
    const text = lines.join('\n');
    expect(text).toContain(`the lead's wait on req_1 ends: "shut_down"`);
    expect(text).toContain(`the lead's wait on req_2 ends: "rejected"`);
    expect(text).toContain(`the lead's wait on req_3 ends: "expired"`);
    expect(text).toContain(
      'the lead approves req_5: {"ok":true,"kind":"response","requestId":"req_5","state":"approved"}',
    );
    expect(text).toMatch(/carol answers erin's req_6: .*"code":"wrong_sender"/);
    expect(text).toMatch(/erin's answer arrives after the deadline: .*"code":"late"/);
    expect(text).toMatch(/app A \(pid \d+\) killed with SIGKILL while the lead waited on req_7/);
    expect(text).toContain(`the lead's wait on req_7 ends: "shut_down"`);
    expect(text).toContain('bob taken off the roster 1 time(s), by app B');
  }, 120_000);
});
