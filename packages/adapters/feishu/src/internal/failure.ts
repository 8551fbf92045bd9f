import { FeishuAdapterError } from '../errors.js';

/** Feishu's codes for "too many requests": the gateway's, and the IM send limit's. */
const RATE_LIMIT_CODES: readonly number[] = [99991400, 230020];

/** A Feishu error for an answer with a non-zero code, or for what the SDK's HTTP client threw. */
export function toFeishuError(problem: unknown, operation: string): FeishuAdapterError {
  // An axios error carries the HTTP answer (status, headers, body) when there was one.
  const response = (problem as { response?: { status?: unknown; data?: unknown; headers?: unknown } } | null)
    ?.response;
  const body = (response === undefined ? problem : response.data) as
    | { code?: unknown; msg?: unknown }
    | undefined;
  const status = typeof response?.status === 'number' ? response.status : undefined;
  const platformCode = typeof body?.code === 'number' ? body.code : undefined;
  const platformMessage = typeof body?.msg === 'string' ? body.msg : undefined;
  const details: Record<string, unknown> = { operation };
  if (status !== undefined) details['status'] = status;
  if (platformCode !== undefined) details['platformCode'] = platformCode;
  if (platformMessage !== undefined) details['platformMessage'] = platformMessage;
  const cause = response === undefined && !(problem instanceof Error) ? undefined : problem;
  const options = cause === undefined ? { details } : { details, cause };
  if (status === 429 || (platformCode !== undefined && RATE_LIMIT_CODES.includes(platformCode))) {
    // The gateway says in how many seconds the window resets.
    const reset = Number(
      (response?.headers as Record<string, unknown> | undefined)?.['x-ogw-ratelimit-reset'],
    );
    if (Number.isFinite(reset) && reset >= 0) details['retryAfterMs'] = reset * 1000;
    return new FeishuAdapterError('rate_limited', `Feishu rate-limited ${operation}`, options);
  }
  const reason = platformMessage ?? (problem instanceof Error ? problem.message : 'no answer');
  return new FeishuAdapterError('send_failed', `Feishu refused ${operation}: ${reason}`, options);
}
