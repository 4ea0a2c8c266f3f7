import { Lexer, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { citation } from '../../src/modules/chat/answer-citation.js';
import { splitSentences } from '../../src/modules/chat/answer-sentences.js';
import { contentWords, stem } from '../../src/modules/chat/answer-words.js';
import { DEFAULT_NO_ANSWER, knowledgeOnlyAnswer } from '../../src/modules/chat/knowledge-answer.js';
import { answerPassage } from '../helpers/answer-passage.js';
import { quoted } from '../helpers/knowledge-answer-text.js';

/**
 * The answer without an LLM: the sentences answering the question, quoted exactly from the
 * retrieved passages, with citations; the no-answer message when the passages only share a common
 * word with the question.
 */

const passage = answerPassage;

const ANSWER_SENTENCE = 'The Business plan costs $49 per user per month when billed annually, or $59 billed monthly.';
const PRICING_OPENING = 'Acme Cloud is the simplest way for small teams to share files, calendars and tasks.';

/** a pricing page as the chunker cuts it: ~2,400 characters, the answer in the middle */
const PRICING = [
  `${PRICING_OPENING} Thousands of companies in more than forty countries rely on it every day, from two-person ` +
    'design studios to schools with several hundred staff. Everything is hosted in our own data centres in Frankfurt ' +
    'and Dublin, and your files never leave the European Union unless you ask us to move them.',
  '',
  'Every account starts with a free trial of thirty days. No credit card is needed to sign up, and you can invite as ' +
    'many colleagues as you like during the trial. When the trial ends you choose one of the plans below, or your ' +
    'account switches to read-only mode until you do. Nothing is deleted.',
  '',
  'The Starter plan is free for up to three users and includes 5 GB of storage per team. It is meant for trying ' +
    'things out and for very small teams. ' +
    ANSWER_SENTENCE +
    ' It adds single sign-on, audit logs and 1 TB of storage per team. The Enterprise plan is priced on request; ' +
    'our sales team will prepare an offer within two working days.',
  '',
  'All prices are shown without VAT. Customers in the EU with a valid VAT number are invoiced without VAT under the ' +
    'reverse-charge rule. Invoices are sent by e-mail on the first working day of each billing period and can also be ' +
    'downloaded from the account settings at any time. We accept credit cards, SEPA direct debit and bank transfer ' +
    'for annual contracts.',
  '',
  'You can upgrade at any moment and the difference is charged pro rata for the rest of the billing period. ' +
    'Downgrades take effect at the end of the current period. If you cancel, your data stays available for export ' +
    'for ninety days; after that it is removed from our systems, including backups, within another thirty days. ' +
    'Schools, charities and open-source projects can ask for a discount of up to 50%: write to ' +
    'sales@acme-example.com with a short description of your organisation and the number of people who will use the ' +
    'service. Discounts are reviewed once a year.',
  '',
  'Questions about an invoice go to billing@acme-example.com. We answer within one working day, in English, German ' +
    'or French. For anything urgent, such as an account that was locked after a failed payment, call the number in ' +
    'the footer of every invoice; the line is staffed from 8:00 to 18:00 Central European Time on working days.',
].join('\n');

const PRODUCTS = [
  'Product sheet — spring catalogue',
  'SKU: A-15 | Product: USB-C cable (1 m) | Price: $7.50',
  'SKU: A-16 | Product: Wall charger 20 W | Price: $12.00',
  'SKU: A-17 | Product: Travel adapter | Price: $4.99',
  'SKU: A-18 | Product: Power bank 10000 mAh | Price: $24.90',
  'All prices include VAT. Orders over $50 ship free within the EU.',
  'Support: www.acme-example.com/support',
].join('\n');

const R_MANUAL = [
  'Type conversion',
  'Columns read from a CSV file arrive as text when any of their values is not a number. Use as.numeric() to turn ' +
    'such a column into numbers, e.g. the prices column of an order export; values that cannot be read become NA ' +
    'and R prints a warning. The same applies to as.integer() for whole numbers.',
  'This chapter was tested with R v2.3.1 on Linux and Windows.',
  'Installing packages',
  'To install R packages, call install.packages("name") from the console; the U.S. Navy mirror is no longer ' +
    'available, so choose a CRAN mirror close to you. Installed packages are loaded with library(name).',
].join('\n');

const PYTHON_NOTES =
  'Python packages are installed with pip. Run pip install requests in a terminal, not inside the Python ' +
  'interpreter. Use a virtual environment so that packages of different projects do not conflict.';

const ROUTER_PAGE =
  'To reset the router, hold the reset button on the back for ten seconds until the lights blink. The router then ' +
  'restarts with its factory settings; the admin page is at 192.168.8.1 and the default password is printed on the ' +
  'label under the device. Firmware updates are published on our website every quarter.';

const ROUTER_SPECS =
  'The router supports Wi-Fi 6 on 2.4 GHz and 5 GHz bands. It has four gigabit Ethernet ports and one USB port ' +
  'for printers or storage. Power consumption is below 12 W in normal use.';

const pricing = passage(PRICING, {
  sourceName: 'pricing.html',
  title: 'Pricing',
  pageUrl: 'https://www.acme-example.com/pricing',
});
const products = passage(PRODUCTS, { sourceName: 'catalogue-spring.pdf', title: 'Spring catalogue', page: 3 });
const rManual = passage(R_MANUAL, {
  sourceName: 'r-guide.pdf',
  title: 'R for shop owners',
  page: 12,
  heading: 'Data import > Type conversion',
});
const routerPage = passage(ROUTER_PAGE, {
  sourceName: 'help.acme-example.com',
  title: 'Router [beta] setup',
  pageUrl: 'https://help.acme-example.com/router setup (v2)',
  heading: 'Setup > Reset',
});
const routerSpecs = passage(ROUTER_SPECS, { sourceName: 'router-specs.txt' });

const withSources = { showSources: true };

describe('content words and stems', () => {
  it('drops stop words, keeps one-letter words and dotted tokens whole', () => {
    expect(contentWords('How do I install R packages?')).toEqual(['install', 'r', 'packag']);
    expect(contentWords('What is the price of the A-17 adapter?')).toEqual(['pric', '17', 'adapter']);
    expect(contentWords('Does it cost $4.99 with v2.3.1 on 192.168.8.1?').sort()).toEqual(
      ['192.168.8.1', '4.99', 'cost', 'v2.3.1'].sort(),
    );
    expect(contentWords('Hi, can you help me?')).toEqual(['help']);
  });

  it('matches light inflections', () => {
    expect(stem('prices')).toBe(stem('price'));
    expect(stem('pricing')).toBe(stem('price'));
    expect(stem('installing')).toBe(stem('install'));
    expect(stem('installed')).toBe(stem('installs'));
    expect(stem("company's")).toBe(stem('company'));
    expect(stem('shipping')).toBe(stem('ships'));
    expect(stem('classes')).toBe(stem('class'));
    expect(stem('R')).toBe('r');
  });
});

describe('sentences', () => {
  it('splits on sentence ends and lines, never inside prices, hosts, functions, versions or abbreviations', () => {
    const text =
      'It costs $4.99 today. Visit www.example.com for more! Use as.numeric, e.g. the Price column.\n' +
      'Tested with v2.3.1 by the U.S. Navy. "Really?" She asked.\nPrice:\n$4.99\nA wrapped line that goes\non in lower case.';
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      'It costs $4.99 today.',
      'Visit www.example.com for more!',
      'Use as.numeric, e.g. the Price column.',
      'Tested with v2.3.1 by the U.S. Navy.',
      '"Really?"',
      'She asked.',
      'Price:',
      '$4.99',
      'A wrapped line that goes\non in lower case.',
    ]);
  });

  it('gives exact slices of the passage', () => {
    for (const s of splitSentences(PRICING)) expect(PRICING.slice(s.start, s.start + s.text.length)).toBe(s.text);
  });
});

describe('knowledgeOnlyAnswer', () => {
  it('quotes the sentence holding the answer from the middle of a long passage, not its opening', () => {
    expect(PRICING.length).toBeGreaterThan(2200);
    const a = knowledgeOnlyAnswer('How much does the Business plan cost per user?', [pricing], withSources);
    expect(a.found).toBe(true);
    expect(a.used).toEqual([pricing]);
    expect(a.text).toContain(ANSWER_SENTENCE);
    expect(a.text).not.toContain(PRICING_OPENING);
    expect(a.text.startsWith('Here is what I found in our information:\n\n> ')).toBe(true);
    expect(a.text.length).toBeLessThan(700);
  });

  it('quotes the record line of a product sheet exactly, and not the neighbouring records', () => {
    const a = knowledgeOnlyAnswer('What is the price of the travel adapter?', [products], withSources);
    expect(a.found).toBe(true);
    expect(quoted(a.text)).toContain('SKU: A-17 | Product: Travel adapter | Price: $4.99');
    expect(a.text).not.toContain('A-16');
    expect(a.text).not.toContain('A-18');
  });

  it('keeps $4.99, www.acme-example.com/support, as.numeric and v2.3.1 intact', () => {
    const support = knowledgeOnlyAnswer('Where is the support website?', [products], withSources);
    expect(support.text).toContain('> Support: www.acme-example.com/support');

    const conversion = knowledgeOnlyAnswer('How do I convert a text column with as.numeric?', [rManual], withSources);
    expect(conversion.text).toContain(
      'Use as.numeric() to turn such a column into numbers, e.g. the prices column of an order export;',
    );

    const version = knowledgeOnlyAnswer('Which R version was this tested with?', [rManual], withSources);
    expect(version.text).toContain('> This chapter was tested with R v2.3.1 on Linux and Windows.');

    const adapter = knowledgeOnlyAnswer('Is the travel adapter $4.99?', [products], withSources);
    expect(adapter.text).toContain('Price: $4.99');
  });

  it('answers "not found" when the passages share only one common word with the question', () => {
    const a = knowledgeOnlyAnswer('Is there parking near the router shop?', [routerPage, routerSpecs], withSources);
    expect(a).toEqual({ text: DEFAULT_NO_ANSWER, used: [], found: false });
  });

  it("uses the owner's no-answer message", () => {
    const custom = 'Sorry, I do not know that. Please e-mail hello@acme-example.com.';
    const a = knowledgeOnlyAnswer('Is there parking near the router shop?', [routerPage], {
      noAnswer: custom,
      showSources: true,
    });
    expect(a).toEqual({ text: custom, used: [], found: false });
    expect(knowledgeOnlyAnswer('Do you sell bicycles?', [], { noAnswer: '  ', showSources: true }).text).toBe(
      DEFAULT_NO_ANSWER,
    );
    expect(knowledgeOnlyAnswer('Do you sell bicycles?', [], { noAnswer: null, showSources: false }).found).toBe(false);
  });

  it('matches a one-letter word: "How do I install R packages?" finds the R passage', () => {
    const a = knowledgeOnlyAnswer('How do I install R packages?', [passage(PYTHON_NOTES), rManual], withSources);
    expect(a.found).toBe(true);
    expect(a.used[0]).toBe(rManual);
    expect(a.text).toContain(
      'To install R packages, call install.packages("name") from the console; the U.S. Navy mirror',
    );
  });

  it('takes the line after a short label or heading', () => {
    const sheet = passage(
      'Opening hours\nMonday to Friday 9:00 to 17:30, Saturday 10:00 to 14:00.\nParking\nFree parking behind the shop.',
    );
    const a = knowledgeOnlyAnswer('What are your opening hours?', [sheet], withSources);
    expect(quoted(a.text)).toBe('Opening hours\nMonday to Friday 9:00 to 17:30, Saturday 10:00 to 14:00.');

    const label = passage('Gift wrapping\nPrice:\n$4.99 per parcel\nDelivery:\nTwo working days');
    expect(quoted(knowledgeOnlyAnswer('What is the price of gift wrapping?', [label], withSources).text)).toContain(
      'Price:\n$4.99 per parcel',
    );

    // a short but complete sentence stands alone: the heading after it is not quoted
    const version = knowledgeOnlyAnswer('Which R version was this tested with?', [rManual], withSources);
    expect(quoted(version.text)).toBe('This chapter was tested with R v2.3.1 on Linux and Windows.');
  });

  describe('citations', () => {
    it('links a website passage to its page URL, escaping the link text and encoding the URL', () => {
      const a = knowledgeOnlyAnswer('How do I reset the router?', [routerPage], withSources);
      expect(a.found).toBe(true);
      expect(a.text).toContain(
        '> To reset the router, hold the reset button on the back for ten seconds until the lights blink.',
      );
      expect(a.text).toContain(
        'Source: [Router \\[beta\\] setup — Setup > Reset](https://help.acme-example.com/router%20setup%20%28v2%29)',
      );

      const link = knowledgeOnlyAnswer('How much does the Business plan cost per user?', [pricing], withSources);
      expect(link.text.endsWith('\n\nSource: [Pricing](https://www.acme-example.com/pricing)')).toBe(true);
    });

    it('names the PDF page and heading', () => {
      expect(citation(rManual)).toBe('Source: R for shop owners, page 12 — Data import > Type conversion');
      const a = knowledgeOnlyAnswer('Which R version was this tested with?', [rManual], withSources);
      expect(a.text).toContain(', page 12');
    });

    it('falls back to the source name without a title', () => {
      expect(citation(routerSpecs)).toBe('Source: router-specs.txt');
    });

    it('has no source lines when sources are hidden', () => {
      const a = knowledgeOnlyAnswer('What is the price of the travel adapter?', [products, rManual, pricing], {
        showSources: false,
      });
      expect(a.found).toBe(true);
      expect(a.text).not.toContain('Source');
    });

    it('renders as block quotes followed by a link in the widget (marked, gfm, breaks)', () => {
      const a = knowledgeOnlyAnswer('How do I reset the router?', [routerPage], withSources);
      const tokens = Lexer.lex(a.text, { gfm: true, breaks: true }).filter((t) => t.type !== 'space');
      expect(tokens.map((t) => t.type)).toEqual(['paragraph', 'blockquote', 'paragraph']);
      const links = (tokens[2] as Tokens.Paragraph).tokens.filter((t: Token) => t.type === 'link') as Tokens.Link[];
      expect(links).toHaveLength(1);
      expect(links[0]!.href).toBe('https://help.acme-example.com/router%20setup%20%28v2%29');
      expect(links[0]!.text).toBe('Router [beta] setup — Setup > Reset'); // the escapes read as the brackets
    });
  });

  it('uses a vector-only passage within distance 0.35 and not one farther away', () => {
    const hours = 'Our office is open Monday to Friday from 9 am to 5 pm. Visitors are welcome without an appointment.';
    const near = passage(hours, { keywordMatch: false, distance: 0.2 });
    const far = passage(hours, { keywordMatch: false, distance: 0.6 });
    const close = knowledgeOnlyAnswer('When can I come by?', [near], withSources);
    expect(close.found).toBe(true);
    expect(close.used).toEqual([near]);
    expect(close.text).toContain('Our office is open Monday to Friday from 9 am to 5 pm.');
    expect(knowledgeOnlyAnswer('When can I come by?', [far], withSources)).toEqual({
      text: DEFAULT_NO_ANSWER,
      used: [],
      found: false,
    });
    // a keyword passage sharing one common word is not rescued by a far vector distance
    expect(
      knowledgeOnlyAnswer('Is there parking near the router shop?', [{ ...routerPage, distance: 0.6 }], withSources)
        .found,
    ).toBe(false);
  });

  it('stays short for three long passages, one quote block per passage used', () => {
    const long = (topic: string) =>
      Array.from(
        { length: 12 },
        (_, i) =>
          `Section ${i + 1} about ${topic} explains the delivery options and the delivery times for region ${i + 1} in detail.`,
      ).join(' ');
    const ps = ['parcels', 'pallets', 'letters'].map((t, i) =>
      passage(long(t), {
        sourceName: `shipping-${i}.txt`,
        title: `Shipping ${t}`,
        pageUrl: `https://www.acme-example.com/shipping/${t}`,
      }),
    );
    for (const p of ps) expect(p.content.length).toBeGreaterThan(1200);
    const a = knowledgeOnlyAnswer('What are the delivery options and delivery times?', ps, withSources);
    expect(a.found).toBe(true);
    expect(a.text.length).toBeLessThan(700);
    expect(a.text.split('\n').filter((l) => l.startsWith('Source: ')).length).toBe(a.used.length);

    const big = [
      pricing,
      { ...pricing, content: PRICING.replace('Business plan', 'Team plan') },
      { ...pricing, content: PRICING.replace('Business plan', 'Pro plan') },
    ];
    const b = knowledgeOnlyAnswer('How much do the plans cost per user per month?', big, withSources);
    expect(b.found).toBe(true);
    expect(b.text.length).toBeLessThan(700);
  });

  it('quotes a sentence repeated by overlapping passages once', () => {
    const cut = PRICING.indexOf(ANSWER_SENTENCE) + ANSWER_SENTENCE.length + 40;
    const first = { ...pricing, content: PRICING.slice(0, cut) };
    const second = { ...pricing, content: PRICING.slice(cut - 400) };
    const a = knowledgeOnlyAnswer('How much does the Business plan cost per user?', [first, second], withSources);
    expect(a.text.split(ANSWER_SENTENCE)).toHaveLength(2);
    expect(a.used).toEqual([first]);
  });

  it('quotes a sentence wrapped over lines as one line, and prefixes every quoted line with "> "', () => {
    const wrapped = passage(
      'Guarantee\nThe warranty covers\nall parts for two years from delivery.\nReturns are free.',
    );
    const a = knowledgeOnlyAnswer('What does the warranty cover?', [wrapped], { showSources: false });
    expect(a.text).toBe(
      'Here is what I found in our information:\n\n> The warranty covers all parts for two years from delivery.',
    );
    const records = passage('SKU: A-15 | Price: $7.50\nSKU: A-16 | Price: $12.00\nSKU: A-17 | Price: $4.99');
    const b = knowledgeOnlyAnswer('Prices of A-15 and A-17?', [records], { showSources: false });
    expect(b.text).toBe(
      'Here is what I found in our information:\n\n> SKU: A-15 | Price: $7.50\n> SKU: A-17 | Price: $4.99',
    );
  });

  it('cuts a very long sentence around its match', () => {
    const run = `${'Lorem ipsum dolor sit amet '.repeat(30)}the warranty lasts two years from delivery ${'and more words follow here '.repeat(30)}`;
    const a = knowledgeOnlyAnswer('How long does the warranty last?', [passage(run)], withSources);
    expect(a.text).toContain('the warranty lasts two years from delivery');
    expect(a.text.length).toBeLessThan(600);
    expect(quoted(a.text).startsWith('… ')).toBe(true);
  });

  it('quotes a Markdown table row under its header row, whose column names count as its words', () => {
    const table = passage(
      'Department contacts\n\n| Department | Phone | Room |\n| --- | --- | --- |\n| IT Helpdesk | +1 (555) 014-2300 | A-101 |\n| Finance | +1 (555) 014-2320 | A-310 |',
    );
    const a = knowledgeOnlyAnswer('What is the phone number of the IT Helpdesk?', [table], { showSources: false });
    expect(a.found).toBe(true);
    expect(a.text).toBe(
      'Here is what I found in our information:\n\n> | Department | Phone | Room |\n> | --- | --- | --- |\n> | IT Helpdesk | +1 (555) 014-2300 | A-101 |',
    );
  });
});
