import type { CorpusQuestion } from './corpus.js';

/**
 * An FAQ as a text file, in the style of the SQLite FAQ (whose text is in the public domain; the
 * entries here are a slice of it, shortened): numbered question lines, each followed by its answer,
 * hard-wrapped at 72 columns. Its questions (issue 33) ask in the FAQ's own words and in the
 * visitor's, and a few ask what it does not say though they share its common words; a few more ask
 * the R FAQ and the web site of corpus.ts in other words.
 */

const ENTRIES: Array<[string, string]> = [
  [
    '(1) How do I create an AUTOINCREMENT field?',
    'Short answer: A column declared INTEGER PRIMARY KEY will autoincrement. If you declare a column of a table to be ' +
      'INTEGER PRIMARY KEY, then whenever you insert a NULL into that column of the table, the NULL is automatically ' +
      'converted into an integer which is one greater than the largest value of that column over all other rows in ' +
      'the table, or 1 if the table is empty.',
  ],
  [
    '(2) What datatypes does SQLite support?',
    'SQLite uses dynamic typing. Content can be stored as INTEGER, REAL, TEXT, BLOB, or as NULL.',
  ],
  [
    '(5) Can multiple applications or multiple instances of the same application access a single database file at the same time?',
    'Multiple processes can have the same database open at the same time. Multiple processes can be doing a SELECT ' +
      'at the same time. But only one process can be making changes to the database at any moment in time, however.',
  ],
  [
    '(6) Is SQLite threadsafe?',
    'Threads are evil. Avoid them. SQLite is threadsafe. We make this concession since many users choose to ignore ' +
      'the advice given in the previous paragraph. But in order to be thread-safe, SQLite must be compiled with the ' +
      'SQLITE_THREADSAFE preprocessor macro set to 1.',
  ],
  [
    '(7) How do I list all tables/indices contained in an SQLite database?',
    'If you are running the sqlite3 command-line access program you can type ".tables" to get a list of all tables. ' +
      'Or you can type ".schema" to see the complete database schema including all tables and indices.',
  ],
  [
    '(9) What is the maximum size of a VARCHAR in SQLite?',
    'SQLite does not enforce the length of a VARCHAR. You can declare a VARCHAR(10) and SQLite will be happy to store ' +
      'a 500-million character string there. And it will keep all 500-million characters intact.',
  ],
  [
    '(11) Does SQLite support foreign keys?',
    'As of version 3.6.19 (2009-10-14), SQLite supports foreign key constraints. But enforcement of foreign key ' +
      'constraints is turned off by default (for backwards compatibility). To enable foreign key constraint ' +
      'enforcement, run PRAGMA foreign_keys=ON.',
  ],
  [
    '(12) I accidentally deleted some important information from my SQLite database. How can I recover it?',
    'If you have a backup copy of your database file, recover the information from your backup. If you do not have ' +
      'a backup, recovery is very difficult.',
  ],
  [
    '(21) What is the Export Control Classification Number (ECCN) for SQLite?',
    'After careful review of the Commerce Control List (CCL), we are convinced that the core public-domain SQLite ' +
      'source code is not described by any ECCN, hence the ECCN should be reported as EAR99. The above is true for ' +
      'the core public-domain SQLite. If you extend SQLite by adding new code, or if you statically link SQLite with ' +
      'your application, that might change the ECCN in your particular case.',
  ],
];

export function sqliteFaq(wrap: (text: string) => string): string {
  const out = ['SQLite Frequently Asked Questions', ''];
  for (const [question, answer] of ENTRIES) out.push(wrap(question), wrap(answer), '');
  return out.join('\n');
}

export const FAQ_QUESTIONS: CorpusQuestion[] = [
  {
    q: 'What is the Export Control Classification Number for SQLite?',
    needle: 'EAR99',
    source: 'sqlite-faq.txt',
    kind: 'exact',
  },
  { q: 'What datatypes does SQLite support?', needle: 'dynamic typing', source: 'sqlite-faq.txt', kind: 'exact' },
  { q: 'Does SQLite support foreign keys?', needle: '3.6.19', source: 'sqlite-faq.txt', kind: 'exact' },
  {
    q: 'What is the maximum size of a VARCHAR in SQLite?',
    needle: 'does not enforce the length',
    source: 'sqlite-faq.txt',
    kind: 'exact',
  },
  // the visitor's own words
  {
    q: 'What does the abbreviation ECCN stand for?',
    needle: 'Export Control Classification Number',
    source: 'sqlite-faq.txt',
    kind: 'paraphrase',
  },
  {
    q: 'Can two processes change the same database file at the same moment?',
    needle: 'only one process can be making changes',
    source: 'sqlite-faq.txt',
    kind: 'paraphrase',
  },
  {
    q: 'Is it safe to use SQLite from several threads?',
    needle: 'SQLite is threadsafe',
    source: 'sqlite-faq.txt',
    kind: 'paraphrase',
  },
  {
    q: 'How long may a VARCHAR string be?',
    needle: 'does not enforce the length',
    source: 'sqlite-faq.txt',
    kind: 'paraphrase',
  },
  {
    q: 'How can I see which tables my database has?',
    needle: '.tables',
    source: 'sqlite-faq.txt',
    kind: 'paraphrase',
  },
  {
    q: 'I deleted important rows by accident, how do I get them back?',
    needle: 'backup',
    source: 'sqlite-faq.txt',
    kind: 'paraphrase',
  },
  // the R FAQ (faq.txt) and the web site, asked in other words
  {
    q: 'What does CRAN stand for?',
    needle: 'Comprehensive R Archive Network',
    source: 'faq.txt',
    kind: 'exact',
  },
  {
    q: 'What does the abbreviation CRAN stand for?',
    needle: 'Comprehensive R Archive Network',
    source: 'faq.txt',
    kind: 'paraphrase',
  },
  // a question asking for a list: the last of the three plans must be quoted too
  { q: 'Which plans are there?', needle: 'Business plan costs $79', source: '/pricing', kind: 'paraphrase' },
  // what the FAQ does not say, in its common words
  { q: 'How do I encrypt an SQLite database?', needle: null, source: '', kind: 'none' },
  { q: 'Does SQLite run on a mainframe?', needle: null, source: '', kind: 'none' },
  { q: 'What does the abbreviation GDPR stand for?', needle: null, source: '', kind: 'none' },
];
