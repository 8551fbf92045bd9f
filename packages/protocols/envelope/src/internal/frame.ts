import { clip } from '../reply-limits.js';

/** One problem with an envelope's frame (every field but the payload's contents). */
export interface FrameIssue {
  readonly path: string;
  readonly message: string;
}

/** Longest accepted id, agent name, intent or task reference. */
export const MAX_FIELD_LENGTH = 256;
/** Deepest spawn depth a topology allows, so the deepest an envelope may claim. */
export const MAX_SPAWN_DEPTH = 5;

const FRAME_KEYS: ReadonlySet<string> = new Set([
  'id',
  'from',
  'to',
  'intent',
  'ref_task',
  'payload',
  'expect_response',
  'request_id',
  'in_reply_to',
  'sent_at',
  'spawn_depth',
]);

/**
 * Checks an envelope's frame by hand (cheaper than a schema, and it walks nothing but the top
 * level): a plain object, no unknown keys, required fields present with the right types.
 * Returns `undefined` when the frame is sound.
 */
export function checkFrame(value: unknown): FrameIssue[] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ path: '', message: 'An envelope must be a JSON object' }];
  }
  const v = value as Record<string, unknown>;
  let issues: FrameIssue[] | undefined;
  for (const key in v) {
    if (!FRAME_KEYS.has(key)) issues = add(issues, key, `Unknown envelope field "${clip(key, 64)}"`);
  }
  issues = text(v.id, 'id', true, issues);
  issues = text(v.from, 'from', true, issues);
  issues = text(v.to, 'to', true, issues);
  issues = text(v.intent, 'intent', true, issues);
  issues = text(v.ref_task, 'ref_task', false, issues);
  issues = text(v.request_id, 'request_id', false, issues);
  issues = text(v.in_reply_to, 'in_reply_to', false, issues);
  if (!Object.hasOwn(v, 'payload') || v.payload === undefined) {
    issues = add(issues, 'payload', 'Required');
  }
  const expect = v.expect_response;
  if (expect !== undefined && typeof expect !== 'boolean') {
    issues = add(issues, 'expect_response', 'Expected a boolean');
  }
  const sentAt = v.sent_at;
  if (sentAt === undefined) issues = add(issues, 'sent_at', 'Required');
  else if (typeof sentAt !== 'number' || !Number.isSafeInteger(sentAt) || sentAt < 0) {
    issues = add(issues, 'sent_at', 'Expected epoch milliseconds (an integer ≥ 0)');
  }
  const depth = v.spawn_depth;
  if (depth === undefined) issues = add(issues, 'spawn_depth', 'Required');
  else if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0 || depth > MAX_SPAWN_DEPTH) {
    issues = add(issues, 'spawn_depth', `Expected an integer from 0 to ${MAX_SPAWN_DEPTH}`);
  }
  return issues;
}

function text(
  value: unknown,
  path: string,
  required: boolean,
  issues: FrameIssue[] | undefined,
): FrameIssue[] | undefined {
  if (value === undefined) {
    if (required) issues = add(issues, path, 'Required');
  } else if (typeof value !== 'string') {
    issues = add(issues, path, `Expected a string, got ${value === null ? 'null' : typeof value}`);
  } else if (value.length === 0 || value.length > MAX_FIELD_LENGTH) {
    issues = add(issues, path, `Expected 1 to ${MAX_FIELD_LENGTH} characters`);
  }
  return issues;
}

function add(issues: FrameIssue[] | undefined, path: string, message: string): FrameIssue[] {
  const list = issues ?? [];
  list.push({ path, message });
  return list;
}
