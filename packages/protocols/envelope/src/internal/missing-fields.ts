import { formatPath, type ValidationIssue, type ValidationResult } from '@parley/core';
import type { Envelope } from '../envelope.js';
import type { MissingFieldsPayload } from '../missing-fields-reply.js';

/** Checks a `missing_fields` reply's payload by hand, reporting absent fields like core's validate. */
export function checkMissingFieldsPayload(envelope: Envelope): ValidationResult<MissingFieldsPayload> {
  const payload = envelope.payload;
  const issues: ValidationIssue[] = [];
  const missing: string[] = [];
  const add = (path: (string | number)[], message: string, absent: boolean): void => {
    const pathText = formatPath(path);
    issues.push({ path, pathText, message });
    if (absent && path.length > 0) missing.push(pathText);
  };
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    add([], 'Expected an object', false);
    return { ok: false, issues, missingFields: missing };
  }
  const p = payload as Record<string, unknown>;
  if (typeof p.intent !== 'string') add(['intent'], 'Expected a string', p.intent == null);
  stringList(p.missing_fields, 'missing_fields', add);
  if (!Array.isArray(p.issues)) add(['issues'], 'Expected an array', p.issues == null);
  else {
    p.issues.forEach((issue: unknown, i: number) => {
      const item = (typeof issue === 'object' && issue !== null ? issue : {}) as Record<string, unknown>;
      if (typeof item.path !== 'string') add(['issues', i, 'path'], 'Expected a string', item.path == null);
      if (typeof item.message !== 'string')
        add(['issues', i, 'message'], 'Expected a string', item.message == null);
    });
  }
  if (p.omitted !== undefined && !isOmitted(p.omitted)) {
    add(['omitted'], 'Expected { issues, missing_fields }: counts (integers ≥ 0)', false);
  }
  if (issues.length > 0) return { ok: false, issues, missingFields: missing };
  return { ok: true, value: payload as MissingFieldsPayload }; // every field checked above
}

function stringList(
  value: unknown,
  key: string,
  add: (path: (string | number)[], message: string, absent: boolean) => void,
): void {
  if (!Array.isArray(value)) {
    add([key], 'Expected an array of strings', value == null);
    return;
  }
  value.forEach((item: unknown, i: number) => {
    if (typeof item !== 'string') add([key, i], 'Expected a string', item == null);
  });
}

function isOmitted(value: unknown): boolean {
  const o = value as { issues?: unknown; missing_fields?: unknown } | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    Number.isSafeInteger(o.issues) &&
    (o.issues as number) >= 0 &&
    Number.isSafeInteger(o.missing_fields) &&
    (o.missing_fields as number) >= 0
  );
}
