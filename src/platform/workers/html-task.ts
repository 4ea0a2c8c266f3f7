import type { HtmlDocument } from './types.js';
import { announceThread, runInBackground, type TaskWatch } from './task-thread.js';

// ---- Web pages (knowledge/crawler.ts) ----
// Read here rather than on the main thread: a large or deeply nested page costs its time on
// this thread, at a lower priority, under the pool's timeout (a terminated worker ends it).

export interface HtmlTask {
  html: string;
  url: string;
  watch?: TaskWatch;
}

export type HtmlReply = HtmlDocument | { error: string };

export async function extractHtml({ html, url, watch }: HtmlTask): Promise<HtmlReply> {
  announceThread(watch);
  runInBackground();
  const { htmlBlocks } = await import('../text/html-text.js');
  const { blockKey } = await import('../text/blocks.js');
  try {
    const page = htmlBlocks(html, { url });
    // the crawl's repeated-block filter compares these keys: computed here, off the event loop
    for (const block of page.blocks) if (!block.heading) block.key = blockKey(block.text);
    return page;
  } catch {
    return { error: 'The page could not be read' };
  }
}
