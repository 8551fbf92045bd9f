// How a flow decision reads in the transcript: the verdict (flow), then what the user is told (bot).
import type { FlowSubmitResult, StoredFlowSession } from '@parley/fsm';
import type { CleanupStep } from './flow.js';
import type { HostData } from './session-json.js';
import type { Transcript } from './transcript.js';

/** Writes what the flow decided; returns whether the flow moved on. */
export function reportResult(
  transcript: Transcript,
  result: FlowSubmitResult<CleanupStep, unknown>,
  sayPrompt: () => void,
): boolean {
  if (result.ok) {
    const where = result.next === result.step ? `${result.step} (next answer)` : result.next;
    const how = result.notice === undefined ? 'accepted' : 'failed, default taken';
    transcript.say('flow', result.step, `✓ ${how} → ${where}`);
    if (result.notice !== undefined) transcript.say('bot', result.step, result.notice);
    return true;
  }
  if (result.code === 'flow_done') {
    transcript.say('flow', 'done', `✗ flow_done: ${result.reason}`);
    transcript.say('bot', 'done', 'This session is closed; start a new one for another cleanup.');
    return false;
  }
  const to = result.to === undefined ? '' : ` → ${result.to}`;
  const queue = result.queue === undefined ? '' : ` → queue ${result.queue}`;
  transcript.say('flow', result.step, `✗ ${result.code}, ${result.action}${to}${queue}: ${why(result)}`);
  transcript.say('bot', result.step, result.message);
  if (result.action === 'back') sayPrompt();
  return false;
}

/** Missing fields by name, other issues with their message. */
function why(result: {
  readonly missingFields: readonly string[];
  readonly issues: readonly { pathText: string; message: string }[];
  readonly reason: string;
}): string {
  if (result.missingFields.length === 0) return result.reason;
  const others = result.issues.filter((i) => !result.missingFields.includes(i.pathText));
  return [
    `missing ${result.missingFields.join(', ')}`,
    ...others.map((i) => `${i.pathText}: ${i.message}`),
  ].join('; ');
}

/** Reports every write of a stored session: failed saves, the flow's verdicts, the close_pending mark. */
export function reportSession(
  session: StoredFlowSession<CleanupStep, unknown, HostData>,
  transcript: Transcript,
  sayPrompt: () => void,
): void {
  session.on('save-failed', (e) =>
    transcript.say('host', session.step, `session save failed (try ${e.attempt}): ${e.reason}`),
  );
  session.on('submitted', ({ result }) => {
    reportResult(transcript, result, sayPrompt);
    if (!result.ok && session.mark === 'close_pending')
      transcript.say('host', 'close', 'session persisted as close_pending');
  });
}
