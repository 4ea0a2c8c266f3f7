import { describe, expect, it } from 'vitest';
import { asksForList } from '../../src/modules/chat/answer-gate.js';
import { stem } from '../../src/modules/chat/answer-words.js';
import { DEFAULT_NO_ANSWER, knowledgeOnlyAnswer } from '../../src/modules/chat/knowledge-answer.js';
import { auth, createAgent, registerUser, say, useTestApps } from '../helpers/app.js';
import { addText } from '../helpers/sources.js';
import { answerPassage } from '../helpers/answer-passage.js';
import { quoted, quotedAnswer } from '../helpers/knowledge-answer-text.js';

/**
 * Issue 33: the no-key answer for questions in the visitor's own words. The relevance gate judges
 * the passage (its words, title and headings) rather than one sentence, so one extra word does not
 * turn a found answer into "could not find"; unanswerable questions still get the fallback. An FAQ
 * question line brings its answer; a Q&A source answers with its answer; a price list is quoted as
 * a list, and a question asking for a list gets more than one line.
 */

const passage = answerPassage;

const opts = { showSources: false };

/** an entry of the R FAQ under "2 R Basics"; a text file is cut as the entries come, hard-wrapped */
const rFaq = (entry: string, lines: string[]) =>
  passage(lines.join('\n'), { sourceName: 'R FAQ', title: 'R FAQ', heading: `2 R Basics > ${entry}` });

const R_OBTAIN = rFaq('2.1 How can R be obtained?', [
  '2.1 How can R be obtained?',
  '',
  'Sources, binaries and documentation for R can be obtained via CRAN, the',
  'Comprehensive R Archive Network, whose current members are listed on its',
  'mirrors page. Choose a mirror close to you for faster downloads.',
]);
const R_INSTALL = rFaq('2.2 How do I install R packages?', [
  '2.2 How do I install R packages?',
  '',
  'Packages are installed with install.packages(), which downloads them from the CRAN mirror you chose. Packages',
  'that are not on CRAN can be installed from a local file.',
]);
const R_CITE = rFaq('2.9 How do I cite R?', [
  'To cite R in publications, use the output of citation(). The R Core Team asks that you also cite the packages ' +
    'you used; CRAN shows the citation of every package on its page.',
]);

/** a page of the bakery's web site, https://rossi.example/<page> */
const bakeryPage = (page: string, title: string, content: string) =>
  passage(content, { sourceName: 'Bakery Rossi', title, pageUrl: `https://rossi.example/${page}` });

const BAKERY_PRICES = bakeryPage(
  'prices',
  'Prices',
  'Our prices Croissant: 1.50 euro Sourdough loaf (1 kg): 6.20 euro Rye bread: 4.80 euro Spelt bread: 5.10 euro ' +
    'Cinnamon roll: 2.40 euro',
);
const BAKERY_BREADS = bakeryPage(
  'breads',
  'Our breads',
  'Our breads\n\n- Sourdough loaf, baked with a starter we have kept since 1987\n- Rye bread with sunflower seeds\n' +
    '- Spelt bread, without yeast\n- Ciabatta on Fridays and Saturdays\n\n' +
    'All our breads are baked in a wood-fired oven every morning from 4:00.',
);
const BAKERY_ABOUT = bakeryPage(
  'about',
  'About us',
  'Bakery Rossi was founded in 1987 by Anna Rossi. The shop is open from 7:00 to 18:00 on weekdays and from 7:00 ' +
    'to 13:00 on Saturday; on Sunday it is closed. You find us at Via Roma 12, next to the market hall.',
);

const PLANS = passage(
  'Plans and pricing\n\nEvery Acme router can be managed from our cloud portal. The Basic plan is free for up to three ' +
    'routers and includes firmware updates and a weekly report by e-mail. The Pro plan costs $19 per month and covers ' +
    'up to 25 routers, with alerts by e-mail and text message. The Business plan costs $79 per month for up to 250 ' +
    'routers and adds single sign-on, an audit log and an API.\n\nPrices are per account and exclude sales tax.',
  { sourceName: 'Acme', title: 'Plans and pricing', pageUrl: 'https://acme.example/pricing' },
);

// a slice of the SQLite FAQ (public domain), as a text file is cut: numbered questions, each followed by its answer
const SQLITE_FAQ = passage(
  [
    '(20) In my PHP program, SQLite reports that the database is locked. What can I do?',
    'Another connection holds a write lock. Wait and try again, or set a busy timeout with the busy_timeout pragma.',
    '',
    '(21) What is the Export Control Classification Number (ECCN) for SQLite?',
    'After careful review of the Commerce Control List (CCL), we are convinced that the core public-domain SQLite',
    'source code is not described by any ECCN, hence the ECCN should be reported as EAR99.',
    '',
    '(22) My query does not return the column name that I expect. Is this a bug?',
    'If the columns of your result set are named by AS clauses, then SQLite is guaranteed to use the identifier to the',
    'right of the AS keyword as the column name.',
  ].join('\n'),
  { sourceName: 'SQLite FAQ', title: 'SQLite Frequently Asked Questions' },
);

describe('the relevance gate judges the passage, not one sentence', () => {
  const rFaq = [R_OBTAIN, R_INSTALL, R_CITE];

  it('answers "What does the abbreviation CRAN stand for?" as it answers "What does CRAN stand for?"', () => {
    for (const q of ['What does CRAN stand for?', 'What does the abbreviation CRAN stand for?']) {
      const answer = knowledgeOnlyAnswer(q, rFaq, opts);
      expect(answer.found, q).toBe(true);
      expect(quoted(answer.text), q).toContain('Comprehensive R Archive Network');
    }
  });

  it('answers "not found" when the best entry ties with another holding the same words: nothing stands out', () => {
    // every entry of this FAQ says "SQLite database"; none says "encrypt"
    const faq = passage(
      [
        '(7) How do I list all tables/indices contained in an SQLite database?',
        'Type ".tables" in the sqlite3 command-line program to get a list of all tables.',
        '',
        '(12) I accidentally deleted some important information from my SQLite database. How can I recover it?',
        'If you have a backup copy of your database file, recover the information from your backup.',
      ].join('\n'),
      { sourceName: 'SQLite FAQ' },
    );
    const other = passage('The router encrypts your wireless network with WPA3.', { sourceName: 'router.pdf' });
    expect(knowledgeOnlyAnswer('How do I encrypt an SQLite database?', [faq, other], opts).found).toBe(false);
    // and answers what one entry says
    expect(quotedAnswer('How do I list the tables of an SQLite database?', [faq, other])).toContain('.tables');
  });

  it('still answers "not found" to questions the passages only brush against', () => {
    const all = [BAKERY_PRICES, BAKERY_BREADS, BAKERY_ABOUT, PLANS, R_OBTAIN, R_INSTALL, R_CITE, SQLITE_FAQ];
    for (const q of [
      'What is the price of a gym membership?',
      'Do you sell espresso machines?',
      'Is there parking for visitors at the shop?',
      'What does the abbreviation GDPR stand for?',
      'Can the router play music through a Bluetooth speaker?',
      'Do you deliver bread to offices on Sunday?',
      'What is the export price of a database licence?',
    ]) {
      // each question against the passages a keyword search would return for it: those sharing a word
      const answer = knowledgeOnlyAnswer(q, all, opts);
      expect(answer, q).toEqual({ text: DEFAULT_NO_ANSWER, used: [], found: false });
    }
  });
});

describe('words in other forms', () => {
  it('reads a plural in -ies and a past in -ied as the word in -y', () => {
    expect(stem('companies')).toBe(stem('company'));
    expect(stem('deliveries')).toBe(stem('delivery'));
    expect(stem('applied')).toBe(stem('apply'));
    expect(stem('policies')).toBe(stem('policy'));
    const answer = knowledgeOnlyAnswer(
      'Which companies deliver to Iceland?',
      [passage('NordicPost is the delivery company we use for Iceland; parcels arrive in four days.')],
      opts,
    );
    expect(answer.found).toBe(true);
  });
});

describe('a question line brings its answer', () => {
  it('quotes the answer after a long FAQ question line, not the question alone', () => {
    const answer = knowledgeOnlyAnswer(
      'What is the Export Control Classification Number for SQLite?',
      [SQLITE_FAQ],
      opts,
    );
    expect(answer.found).toBe(true);
    expect(quoted(answer.text)).toContain('EAR99');
    // and not the neighbouring entries
    expect(quoted(answer.text)).not.toContain('busy timeout');
    expect(quoted(answer.text)).not.toContain('AS keyword');
    // nor another entry whose question shares some words, with its answer
    const types = passage(
      [
        '(2) What datatypes does SQLite support?',
        'SQLite uses dynamic typing. Content can be stored as INTEGER, REAL, TEXT, BLOB, or as NULL.',
        '',
        '(11) Does SQLite support foreign keys?',
        'Yes, but their enforcement is turned off by default.',
      ].join('\n'),
    );
    const text = quotedAnswer('What datatypes does SQLite support?', [types]);
    expect(text).toContain('SQLite uses dynamic typing.');
    expect(text).not.toContain('(11) Does SQLite support foreign keys?');
  });

  it("answers from a Q&A source with the owner's answer, not its question line", () => {
    const qa = passage('Q: Do you make vegan cornetti?\nA: Yes, every morning, with oat milk instead of butter.', {
      sourceName: 'Do you make vegan cornetti?',
      qa: { question: 'Do you make vegan cornetti?', answer: 'Yes, every morning, with oat milk instead of butter.' },
    });
    const answer = knowledgeOnlyAnswer(
      'Are the vegan cornetti made with butter or with oat milk?',
      [qa, BAKERY_ABOUT],
      opts,
    );
    expect(answer.found).toBe(true);
    expect(answer.text).toContain('Yes, every morning, with oat milk instead of butter.');
    expect(answer.text).not.toContain('Q: ');
    expect(answer.text).not.toContain('A: ');
  });
});

describe('answers that read well', () => {
  it('tells a question asking for a list from one asking for a fact (English wordings)', () => {
    const lists = [
      'What breads do you have?',
      'Which plans are there?',
      'What vegan options do you have?',
      'What kinds of cake do you make?',
      'What are your prices?',
      'List all the plans',
    ];
    const facts = [
      'What is the price of a croissant?',
      'What are your opening hours on Saturday?',
      'What happens when both bands broadcast identical names?',
      'What does CRAN stand for?',
      'Which room is Facilities in?',
      'How much does the Pro plan cost?',
      'Welche Brote gibt es?',
    ];
    for (const q of lists) expect(asksForList(q), q).toBe(true);
    for (const q of facts) expect(asksForList(q), q).toBe(false);
  });

  it('quotes a price list run into one line as a list, one row a line', () => {
    const answer = knowledgeOnlyAnswer('How much is the rye bread?', [BAKERY_PRICES], opts);
    expect(answer.found).toBe(true);
    const lines = quoted(answer.text).split('\n');
    expect(lines).toContain('Rye bread: 4.80 euro');
    expect(
      lines.every((l) => l.length < 60),
      lines.join(' / '),
    ).toBe(true);
  });

  it('quotes the rows of the list for a question asking for a list', () => {
    const answer = knowledgeOnlyAnswer('What breads do you have?', [BAKERY_BREADS, BAKERY_PRICES, BAKERY_ABOUT], opts);
    const text = quoted(answer.text);
    for (const bread of ['Sourdough loaf', 'Rye bread', 'Spelt bread']) expect(text).toContain(bread);
  });

  it('quotes the list a heading naming what is asked for leads into, and every row for "What are your prices?"', () => {
    const breads = quotedAnswer('What breads do you have?', [BAKERY_PRICES, BAKERY_BREADS, BAKERY_ABOUT]);
    expect(breads).toContain('Our breads\n- Sourdough loaf');
    expect(breads).toContain('- Ciabatta on Fridays and Saturdays');
    const prices = quotedAnswer('What are your prices?', [BAKERY_PRICES, BAKERY_ABOUT]);
    expect(prices.split('\n')).toEqual([
      'Our prices',
      'Croissant: 1.50 euro',
      'Sourdough loaf (1 kg): 6.20 euro',
      'Rye bread: 4.80 euro',
      'Spelt bread: 5.10 euro',
      'Cinnamon roll: 2.40 euro',
    ]);
  });

  it("quotes one row of a table when the question names that row's item, even when it asks for hours", () => {
    const table = passage(
      '| Department | Room | Opening hours |\n| --- | --- | --- |\n| Canteen | C-001 | 07:30-15:00 |\n| Library | B-110 | 09:00-17:00 |\n| Gym | D-002 | 06:00-22:00 |',
    );
    const text = quotedAnswer('Which opening hours does the canteen have?', [table]);
    expect(text).toContain('| Canteen | C-001 | 07:30-15:00 |');
    expect(text).not.toContain('Library');
  });

  it('quotes bullets run into one line one a line', () => {
    const box = passage(
      'In the box\n- X200 router - Power adapter 12 V - Ethernet cable, 1.5 m - Quick start guide\nKeep the box for returns.',
    );
    const text = quotedAnswer('Is an ethernet cable in the box?', [box]);
    expect(text.split('\n')).toContain('- Ethernet cable, 1.5 m');
  });

  it('quotes a sentence of a hard-wrapped text file whole, across a line starting with a capital', () => {
    const text = quotedAnswer('Where can R be obtained?', [R_OBTAIN]);
    expect(text).toContain(
      'Sources, binaries and documentation for R can be obtained via CRAN, the Comprehensive R Archive Network, whose current members are listed on its mirrors page.',
    );
  });

  it('quotes every plan for "which plans are there"', () => {
    const answer = knowledgeOnlyAnswer('Which plans are there?', [PLANS], opts);
    const text = quoted(answer.text);
    for (const plan of ['Basic plan', 'Pro plan', 'Business plan']) expect(text).toContain(plan);
  });

  it('still quotes one row for a question about one item', () => {
    const answer = knowledgeOnlyAnswer('How much does the Pro plan cost?', [PLANS], opts);
    expect(quoted(answer.text)).toContain('The Pro plan costs $19 per month');
    expect(quoted(answer.text)).not.toContain('Basic plan');
  });
});

describe('a Q&A source through the public chat without a model key', () => {
  const apps = useTestApps();

  it("answers with the owner's answer when another wording of the question finds it", async () => {
    const t = await apps.start({ env: { EMBEDDINGS: 'none' } });
    const owner = await registerUser(t.app);
    const agent = await createAgent(t.app, owner.token);
    await addText(t, owner.token, agent.id, 'About', BAKERY_ABOUT.content);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${agent.id}/qa`,
      headers: auth(owner.token),
      payload: {
        question: 'Do you make vegan cornetti?',
        answer: 'Yes, every morning, with oat milk instead of butter.',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const reply = await say(t, agent.id, 's1', 'Are the vegan cornetti made with butter or with oat milk?');
    expect(reply.message).toContain('Yes, every morning, with oat milk instead of butter.');
    expect(reply.message).not.toContain('Q: ');
  });
});

describe('the best sentence’s paragraph goes on by one sentence holding a question word', () => {
  const faq = passage(
    'Why are these numbers not equal?\n\nOnly integers and fractions whose denominator is a power of 2 are exact. ' +
      'All other numbers are rounded to 53 binary digits. See the manual for more.\n\nHow do I install it?\n\nRun the installer.',
  );

  it('an FAQ answer whose fact is in its second sentence quotes that sentence too', () => {
    const a = knowledgeOnlyAnswer('Why are these numbers not equal?', [faq], opts);
    expect(quoted(a.text)).toContain('53 binary digits');
    // not past the paragraph, and not a sentence without a word of the question
    expect(a.text).not.toContain('See the manual');
    expect(a.text).not.toContain('installer');
  });

  it('a line on another subject after the best one is not quoted', () => {
    const lines = passage('The warranty covers all parts for two years.\nReturns are free within 30 days.');
    const a = knowledgeOnlyAnswer('What does the warranty cover?', [lines], opts);
    expect(a.text).not.toContain('Returns');
  });
});

describe('a table row is one line to quote', () => {
  it('a row whose cell holds sentences is quoted whole, its price with it', () => {
    const table = passage(
      'Licenses\n\n| No. | Product | Price |\n| --- | --- | --- |\n' +
        '| 5. | Standard License. Warranty of title for the source code. | $6000 one time fee |\n' +
        '| 6. | Encryption Extension (SEE). A drop-in replacement that reads encrypted databases. | $2000 one time fee |',
    );
    const a = knowledgeOnlyAnswer('How much does the Encryption Extension cost?', [table], opts);
    expect(a.found).toBe(true);
    expect(quoted(a.text)).toContain('$2000 one time fee');
    expect(quoted(a.text)).not.toContain('$6000');
  });
});
