// A node's output as the store will keep it: JSON, checked against its artifact schema, and the
// clarification a retry asks for when the schema found fields missing.
import { type JsonValue, validate } from '@parley/core';
import type { RetryContext } from '../retry-context.js';
import type { NodeContext } from '../runner-types.js';
import type { RunnerEnv } from './env.js';
import { jsonCopy } from './json-copy.js';

type WorkNode = NodeContext['node'];

export type Checked =
  | { readonly ok: true; readonly value: JsonValue }
  | {
      readonly ok: false;
      readonly message: string;
      readonly missingFields?: readonly string[];
      /** The output as JSON, when it is JSON. */
      readonly json?: JsonValue;
    };

/** The reference `request_clarification` payload for an output that left fields out. */
export function clarify(node: WorkNode, checked: Checked & { ok: false }): RetryContext['clarification'] {
  const missing = checked.missingFields;
  if (missing === undefined || missing.length === 0 || checked.json === undefined) return undefined;
  return {
    previous_report: checked.json,
    missing_fields: missing,
    question: `Fill in ${missing.join(', ')} and deliver ${node.output ?? 'the output'} again, complete.`,
  };
}

/** The output as JSON, checked against the node's artifact schema when there is one. */
export function checkOutput(env: RunnerEnv, node: WorkNode, value: unknown): Checked {
  let json: JsonValue;
  try {
    json = jsonCopy(value ?? null); // what the store will keep
  } catch (error) {
    return { ok: false, message: `the output is not JSON (${String(error)})` };
  }
  const match = node.output === undefined ? undefined : env.artifacts?.select(node.output);
  if (node.output !== undefined && env.artifacts !== undefined && match === undefined)
    return { ok: false, message: `no schema for the artifact ${node.output}` };
  if (match === undefined) return { ok: true, value: json };
  const result = validate(match.schema, json);
  if (result.ok) return { ok: true, value: json };
  return {
    ok: false,
    message: `${node.output}: ${result.issues.map((issue) => `${issue.pathText || '(root)'} ${issue.message}`).join('; ')}`,
    missingFields: result.missingFields,
    json,
  };
}
