// One JSON call to a Restate server's ingress, shared by the Restate bench cases.
import { type Agent, request } from 'node:http';

/** POSTs `body` as JSON to `url` over `agent`'s kept-alive connections; resolves the parsed answer, rejects on a status ≥ 300. */
export function post<T>(agent: Agent, url: string, body: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          (res.statusCode ?? 0) < 300
            ? resolve(JSON.parse(text) as T)
            : reject(new Error(`${url}: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
