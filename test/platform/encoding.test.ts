import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compressDynamic,
  ifNoneMatch,
  negotiateEncoding,
  parseAcceptEncoding,
} from '../../src/platform/http/encoding.js';
import { codingEtag, loadStaticBody } from '../../src/platform/http/static-file.js';

/** Content-coding negotiation (RFC 9110 §12.5.3) shared by the widget, admin UI and share page. */

const both = ['br', 'gzip'] as const;

describe('negotiateEncoding', () => {
  it.each([
    // [Accept-Encoding, available, chosen]
    [undefined, both, 'identity'],
    ['', both, 'identity'],
    ['identity', both, 'identity'],
    ['br, gzip', both, 'br'],
    ['gzip, br', both, 'br'], // equal q: the server's preference, br first
    ['gzip, deflate, br, zstd', both, 'br'],
    ['gzip', both, 'gzip'],
    ['x-gzip', both, 'gzip'],
    ['GZIP', both, 'gzip'],
    ['deflate', both, 'identity'],
    ['br', ['gzip'], 'identity'],
    ['br, gzip', ['gzip'], 'gzip'],
    ['br, gzip', [], 'identity'],
    // q-values
    ['br;q=0.5, gzip', both, 'gzip'],
    ['br;q=0.5, gzip;q=0.8', both, 'gzip'],
    ['br;q=1.0, gzip;q=1', both, 'br'],
    ['br ; Q=0.9 , gzip ;q=0.1', both, 'br'],
    ['gzip;q=0.5', both, 'gzip'], // identity not listed: acceptable, but below every listed coding
    ['gzip;q=0.5, identity', both, 'identity'],
    ['gzip;q=0.5, identity;q=0.5', both, 'gzip'],
    // refusals
    ['br;q=0, gzip;q=0', both, 'identity'],
    ['br;q=0, gzip', both, 'gzip'],
    ['br;q=0.000, gzip;q=0.0', both, 'identity'],
    ['identity;q=0, gzip', both, 'gzip'],
    ['*;q=0, gzip', both, 'gzip'],
    ['*;q=0', both, 'identity'], // everything refused: identity still, rather than a 406
    ['identity;q=0', [], 'identity'],
    // the wildcard
    ['*', both, 'br'],
    ['*', ['gzip'], 'gzip'],
    ['*', [], 'identity'],
    ['*;q=0.5, br;q=0', both, 'gzip'],
    ['gzip;q=0.3, *;q=0.6', both, 'br'],
    ['br;q=0.2, *;q=0.6, identity;q=0.1', both, 'gzip'],
    // malformed q: the entry is ignored
    ['br;q=2, gzip', both, 'gzip'],
    ['br;q=abc, gzip;q=0.5', both, 'gzip'],
    ['br;q=0.1234', both, 'identity'],
    [' , ;q=1, br', both, 'br'],
  ] as const)('%j with %j → %s', (header, available, expected) => {
    expect(negotiateEncoding(header, available)).toBe(expected);
  });

  it('parses codings with their q, lower-cased, first entry of a repeated coding winning', () => {
    expect([...parseAcceptEncoding('Br;q=0.7, gzip, x-gzip;q=0.1, *;q=0, compress;level=1')]).toEqual([
      ['br', 0.7],
      ['gzip', 1],
      ['*', 0],
      ['compress', 1],
    ]);
  });
});

describe('ifNoneMatch', () => {
  it('matches the listed tag, weakly, or *', () => {
    expect(ifNoneMatch(undefined, '"a"')).toBe(false);
    expect(ifNoneMatch('"a"', '"a"')).toBe(true);
    expect(ifNoneMatch('"x", "a"', '"a"')).toBe(true);
    expect(ifNoneMatch('W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatch('*', '"a"')).toBe(true);
    expect(ifNoneMatch('"a"', '"a-br"')).toBe(false);
    expect(ifNoneMatch('"a-br"', '"a"')).toBe(false);
  });
});

describe('compressDynamic', () => {
  const big = Buffer.from('<p>hello, compressible world</p>\n'.repeat(100));

  it('compresses a body of 1 KB and more for a client that accepts it, br first', () => {
    const br = compressDynamic(big, 'gzip, br');
    expect(br.coding).toBe('br');
    expect(brotliDecompressSync(br.body).equals(big)).toBe(true);
    const gz = compressDynamic(big, 'gzip');
    expect(gz.coding).toBe('gzip');
    expect(gunzipSync(gz.body).equals(big)).toBe(true);
  });

  it('sends small bodies, and bodies for clients that do not accept a coding, as they are', () => {
    const small = Buffer.from('<p>hi</p>'.repeat(50));
    expect(small.length).toBeLessThan(1024);
    expect(compressDynamic(small, 'br, gzip')).toEqual({ body: small, coding: 'identity' });
    for (const header of [undefined, 'identity', 'br;q=0, gzip;q=0', 'deflate']) {
      expect(compressDynamic(big, header)).toEqual({ body: big, coding: 'identity' });
    }
  });
});

describe('loadStaticBody', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'static-body-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }), 30_000);
  const text = Buffer.from('console.log("a compressible script");\n'.repeat(50));

  it('loads the .br and .gz variants beside a file, each with its own ETag', () => {
    const file = path.join(dir, 'a.js');
    writeFileSync(file, text);
    writeFileSync(`${file}.br`, brotliCompressSync(text));
    writeFileSync(`${file}.gz`, gzipSync(text));
    const f = loadStaticBody(file);
    expect(f.body.equals(text)).toBe(true);
    expect(f.etag).toMatch(/^"[\w-]{27}"$/);
    expect(f.encoded.br?.etag).toBe(codingEtag(f.etag, '-br'));
    expect(f.encoded.br?.etag).toBe(`${f.etag.slice(0, -1)}-br"`);
    expect(f.encoded.gzip?.etag).toBe(`${f.etag.slice(0, -1)}-gz"`);
    expect(brotliDecompressSync(f.encoded.br!.body).equals(text)).toBe(true);
  });

  it('ignores a variant that is missing, stale (another file) or corrupt', () => {
    const file = path.join(dir, 'b.js');
    writeFileSync(file, text);
    expect(loadStaticBody(file).encoded).toEqual({});
    writeFileSync(`${file}.br`, brotliCompressSync(Buffer.concat([text, Buffer.from('// older build\n')])));
    writeFileSync(`${file}.gz`, Buffer.from('not gzip at all'));
    expect(loadStaticBody(file).encoded).toEqual({});
  });
});
