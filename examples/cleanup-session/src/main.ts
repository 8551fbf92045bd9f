// The CLI. By default it runs the four scripted sessions on simulated time and prints the transcript
// and a line on how each session ended; `--verbose` also prints each final session JSON;
// `--interactive` lets you type the user's replies; `--tour` (what `npm run demo` passes) runs the
// first two sessions: the happy path and the one that refuses bad input at every step.
import { createManualClock } from '@parley/core';
import { runInteractive } from './interactive.js';
import { createPrefixedIds, runCleanupSession } from './run.js';
import { SCENARIOS } from './scenarios.js';
import { createTranscript } from './transcript.js';

const verbose = process.argv.includes('--verbose');

/** How a session ended, in one line: its state and, when it ran, the execution's status. */
function summary(session: unknown): string {
  const { state, execution } = session as { state?: unknown; execution?: { status?: unknown } };
  const ran = execution?.status === undefined ? '' : `, execution ${String(execution.status)}`;
  return `${String(state)}${ran} (--verbose prints the session JSON)`;
}

async function main(): Promise<void> {
  if (process.argv.includes('--interactive')) {
    await runInteractive();
    return;
  }
  const clock = createManualClock({ now: Date.UTC(2026, 3, 15, 9, 0, 0) });
  const generateId = createPrefixedIds();
  const transcript = createTranscript(clock, (line) => console.log(line));
  const scenarios = process.argv.includes('--tour') ? SCENARIOS.slice(0, 2) : SCENARIOS;
  for (const scenario of scenarios) {
    const result = await runCleanupSession({ scenario, clock, generateId, transcript });
    if (verbose) {
      console.log(`\nsession JSON of ${result.sessionId} (${scenario.name}):`);
      console.log(JSON.stringify(result.sessionJson, null, 2));
    } else {
      console.log(`\n→ ${result.sessionId} (${scenario.name}) ended ${summary(result.sessionJson)}`);
    }
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
