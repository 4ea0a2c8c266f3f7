// The zero-latency fake OpenAI server of the tests, in its own process for the chat benchmark
// (so it does not share a core with the load generator). Prints `listening <url>`.
// The bench measures the app's time beside this server's, so the fake keeps its own work and
// garbage small: it records no requests and embeds each distinct text once. bench/lib.ts starts it
// with --single-threaded-gc: its full collections ran concurrent marking on four threads, and on
// two cores that took both from the app in the middle of a turn.
import { startFakeLlm } from '../test/helpers/fake-llm.js';
import { fakeEmbedding } from '../test/helpers/fake-llm-embeddings.js';

const embeddings = new Map<string, number[]>();
const fake = await startFakeLlm('openai', {
  reply: 'We are open from 9 to 18 on weekdays.',
  chunks: 1,
  recordRequests: false,
  embed: (text, dimensions) => {
    const key = `${dimensions}:${text}`;
    let vector = embeddings.get(key);
    if (!vector) embeddings.set(key, (vector = fakeEmbedding(text, dimensions)));
    return vector;
  },
});
console.log(`listening ${fake.url}`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
