// Slack's request signing (https://api.slack.com/authentication/verifying-requests-from-slack):
// `v0=` + the hex HMAC-SHA256, keyed with the signing secret, of `v0:<timestamp>:<body>`.
import { createHmac } from 'node:crypto';

export function signatureHeaders(secret: string, body: string, atSeconds: number): Record<string, string> {
  const signature = createHmac('sha256', secret).update(`v0:${atSeconds}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': String(atSeconds), 'x-slack-signature': `v0=${signature}` };
}
