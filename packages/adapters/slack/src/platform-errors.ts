import { SlackAdapterError } from './errors.js';

type Coded = {
  readonly code?: unknown;
  readonly retryAfter?: unknown;
  readonly statusCode?: unknown;
  readonly data?: { readonly error?: unknown; readonly response_metadata?: unknown };
};

/**
 * A `@slack/web-api` error as a {@link SlackAdapterError}, read by its documented `code`:
 * `slack_webapi_rate_limited_error` (HTTP 429; `retryAfter` seconds) and a platform error
 * `ratelimited` → `rate_limited`; any other platform error (`ok: false`) or HTTP status →
 * `platform_error`; a request that got no answer (`slack_webapi_request_error`) → `network_error`.
 */
export function toAdapterError(error: unknown): SlackAdapterError {
  const coded = Object(error) as Coded; // any thrown value, read by its fields
  if (coded.code === 'slack_webapi_rate_limited_error') {
    // The WebClient raises this error only with the Retry-After header's seconds in `retryAfter`.
    return new SlackAdapterError('rate_limited', 'Slack rate-limited the call (HTTP 429)', {
      details: { retryAfterMs: Number(coded.retryAfter) * 1000 },
      cause: error,
    });
  }
  if (coded.code === 'slack_webapi_platform_error') {
    const slackError = String(coded.data?.error);
    if (slackError === 'ratelimited') {
      return new SlackAdapterError('rate_limited', 'Slack answered ratelimited', {
        details: { error: slackError },
        cause: error,
      });
    }
    return new SlackAdapterError('platform_error', `Slack answered ${slackError}`, {
      details: { error: slackError },
      cause: error,
    });
  }
  if (coded.code === 'slack_webapi_http_error') {
    return new SlackAdapterError('platform_error', `Slack answered HTTP ${String(coded.statusCode)}`, {
      details: { statusCode: coded.statusCode },
      cause: error,
    });
  }
  return new SlackAdapterError('network_error', `Slack could not be reached: ${String(error)}`, {
    cause: error,
  });
}
