import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { lightFetch } from '../../src/providers/light-fetch.js';

/**
 * The OpenAI SDK's fetch (src/providers/light-fetch.ts) against a server on 127.0.0.1: what the
 * SDK reads of a fetch Response (status, headers, a JSON body, a stream of events) is as fetch
 * gives it, and an abort or a refused connection fails the call as fetch fails it.
 */
type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: Handler): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => handler(req, body, res));
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('lightFetch', () => {
  it('a JSON answer: status, every header (repeated ones too) and the body, as sent', async () => {
    const seen: Array<{ method?: string; auth?: string; type?: string; body: string }> = [];
    const url = await serve((req, body, res) => {
      seen.push({ method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body });
      res.writeHead(201, [
        ['content-type', 'application/json'],
        ['x-request-id', 'req-7'],
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ]);
      res.end(JSON.stringify({ id: 'emb-1', data: [1, 2, 3] }));
    });
    const res = await lightFetch(new URL('/v1/embeddings', url), {
      method: 'POST',
      headers: new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' }),
      body: JSON.stringify({ input: ['hello'] }),
    });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get('x-request-id')).toBe('req-7');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.json()).toEqual({ id: 'emb-1', data: [1, 2, 3] });
    expect(seen).toEqual([{ method: 'POST', auth: 'Bearer k', type: 'application/json', body: '{"input":["hello"]}' }]);
  });

  it('an error status keeps its body for the SDK to read the message', async () => {
    const url = await serve((_req, _body, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
      res.end(JSON.stringify({ error: { message: 'Rate limit reached' } }));
    });
    const res = await lightFetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toEqual({ error: { message: 'Rate limit reached' } });
  });

  it('204: no body', async () => {
    const url = await serve((_req, _body, res) => {
      res.writeHead(204);
      res.end();
    });
    const res = await lightFetch(url, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it('a stream of events arrives piece by piece, before the server ends it', async () => {
    let finish: () => void = () => {};
    const url = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"delta":"Hel"}\n\n');
      finish = () => res.end('data: [DONE]\n\n');
    });
    const res = await lightFetch(url, { method: 'POST', body: '{"stream":true}' });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"delta":"Hel"}\n\n');
    finish();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read())
      rest += new TextDecoder().decode(next.value);
    expect(rest).toBe('data: [DONE]\n\n');
  });

  it('follows a redirect as fetch does, the body sent again', async () => {
    const bodies: string[] = [];
    const url = await serve((req, body, res) => {
      bodies.push(`${req.url} ${body}`);
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"moved":true}');
    });
    const res = await lightFetch(`${url}/old`, { method: 'POST', body: '{"q":1}' });
    expect(await res.json()).toEqual({ moved: true });
    expect(bodies).toEqual(['/old {"q":1}', '/new {"q":1}']);
  });

  it('an abort mid-stream fails the read with an AbortError and closes the connection', async () => {
    let serverSawClose: () => void = () => {};
    const closed = new Promise<void>((resolve) => (serverSawClose = resolve));
    const url = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      res.on('close', () => serverSawClose());
    });
    const controller = new AbortController();
    const res = await lightFetch(url, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await closed;
  });

  it('an abort before the answer rejects the call with an AbortError', async () => {
    const url = await serve(() => {
      // never answers
    });
    const controller = new AbortController();
    const pending = lightFetch(url, { method: 'POST', body: '{}', signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a refused connection rejects with the system error (what the provider guard reads as unreachable)', async () => {
    const url = await serve(() => {});
    const port = new URL(url).port;
    const s = servers.pop()!;
    await new Promise((r) => s.close(r));
    const err = await lightFetch(`http://127.0.0.1:${port}/`, { method: 'GET' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('a body it does not take as it is (form data) goes through fetch unchanged', async () => {
    const url = await serve((req, body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: req.headers['content-type'], body }));
    });
    const res = await lightFetch(url, { method: 'POST', body: new URLSearchParams({ a: '1' }) });
    expect(await res.json()).toEqual({ type: 'application/x-www-form-urlencoded;charset=UTF-8', body: 'a=1' });
  });
});
