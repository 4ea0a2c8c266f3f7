import type { Clock } from '../../src/platform/clock.js';
import { startTestApp, type TestApp } from './app.js';
import { type FakeBehaviour, type FakeLlm, startFakeLlm } from './fake-llm.js';
import { startSmtp, type TestSmtp } from './smtp.js';

/**
 * An app (keyword-only retrieval) that mails through a new test SMTP server as
 * alerts@chat-agent.test and whose openai provider is a fake server behaving as `llm`, given
 * `key`. `close` stops the app (removing its data dir), then the two servers.
 */
export async function appWithMailAndLlm(opts: {
  key: string;
  llm: Partial<FakeBehaviour>;
  clock?: Clock;
}): Promise<{ t: TestApp; smtp: TestSmtp; fake: FakeLlm; close(): Promise<void> }> {
  const smtp = await startSmtp();
  const fake = await startFakeLlm('openai', opts.llm);
  const env = {
    SMTP_URL: smtp.url,
    SMTP_FROM: 'alerts@chat-agent.test',
    OPENAI_API_KEY: opts.key,
    OPENAI_BASE_URL: fake.baseURL,
    EMBEDDINGS: 'none',
  };
  const t = await startTestApp({ clock: opts.clock, env }).catch(async (err) => {
    await smtp.close();
    await fake.close();
    throw err;
  });
  return {
    t,
    smtp,
    fake,
    close: async () => {
      await t.cleanup();
      await smtp.close();
      await fake.close();
    },
  };
}
