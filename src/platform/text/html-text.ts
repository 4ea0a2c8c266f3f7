import { load } from 'cheerio';
import { collapse, type HtmlBlock } from './blocks.js';
import { BlockBuilder } from './html-block-builder.js';
import { type DomNode, walk } from './html-dom.js';
import { resolveLinks, surveyPage } from './html-survey.js';

export { joinBlocks, RepeatedBlocks, type HtmlBlock, type StructuredText } from './blocks.js';

/**
 * The readable structure of an HTML page (a website page, or the HTML mammoth makes of a DOCX):
 * blocks of text (paragraphs, whole lists, whole tables as Markdown, headings) with the heading
 * path above each, the page's links and its title. Pure (no I/O), so it can run in a worker.
 *
 * Parsing goes through cheerio's htmlparser2 mode rather than its default parse5: parse5 is
 * quadratic in the nesting depth (50,000 nested divs take 8.6 s, htmlparser2 0.2 s), and it is
 * slower on flat pages too (up to 10x). htmlparser2 does not add the implied html/head/body/tbody, which
 * the walk below does not need. The DOM is then read with two linear walks over the domhandler
 * nodes, never with cheerio selections: the first collects links, the title and per-element
 * statistics (text length, link text, what an element holds; html-survey.ts); the second builds
 * the blocks, deciding what to drop from those statistics in O(1) per element (html-block-builder.ts,
 * data tables in html-table.ts).
 */

export interface HtmlDocument {
  title: string;
  blocks: HtmlBlock[];
  /** absolute http(s) links of the whole page (menus included), fragments removed; empty without a url */
  links: string[];
}

export interface HtmlOptions {
  /** the page's address: links are resolved against it (or the page's `<base href>`) */
  url?: string;
  /** drop navigation, headers, footers, sidebars, cookie banners and link lists (default true; DOCX passes false) */
  boilerplate?: boolean;
}

export function htmlBlocks(html: string, options: HtmlOptions = {}): HtmlDocument {
  const boilerplate = options.boilerplate ?? true;
  const $ = load(html, { xml: { xmlMode: false, decodeEntities: true } });
  const document = $.root()[0] as unknown as DomNode;
  const survey = surveyPage(document);
  const links = options.url ? resolveLinks(survey.hrefs, survey.baseHref, options.url) : [];
  const root = survey.main ?? survey.roleMain ?? survey.article ?? survey.body ?? document;
  const builder = new BlockBuilder(boilerplate);
  walk(root, builder.enter, builder.exit);
  builder.endBlock();
  return { title: collapse(survey.title ?? survey.h1 ?? ''), blocks: builder.blocks, links };
}
