// The CLI. By default it runs the four scripted sessions on simulated time and prints the transcript
// and each final session JSON; `--interactive` lets you type the user's replies.
import { createManualClock } from '@parley/core';
import { runInteractive } from './interactive.js';
import { createPrefixedIds, runCleanupSession } from './run.js';
import { SCENARIOS } from './scenarios.js';
import { createTranscript } from './transcript.js';

async function main(): Promise<void> {
  if (process.argv.includes('--interactive')) {
    await runInteractive();
    return;
  }
  const clock = createManualClock({ now: Date.UTC(2026, 3, 15, 9, 0, 0) });
  const generateId = createPrefixedIds();
  const transcript = createTranscript(clock, (line) => console.log(line));
  for (const scenario of SCENARIOS) {
    const result = await runCleanupSession({ scenario, clock, generateId, transcript });
    console.log(`\nsession JSON of ${result.sessionId} (${scenario.name}):`);
    console.log(JSON.stringify(result.sessionJson, null, 2));
    if (result.auditExport !== undefined) {
      const size = JSON.stringify(result.auditExport).length;
      console.log(`audit export: ${size} bytes, redacted (cleanup:audit:${result.sessionId})`);
    }
    if (clock.pendingTimers() !== 0) throw new Error('a timer was left pending');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
