// The zero-latency fake OpenAI server of the tests, in its own process for the chat benchmark
// (so it does not share a core with the load generator). Prints `listening <url>`.
import { startFakeLlm } from '../test/helpers/fake-llm.js';

const fake = await startFakeLlm('openai', { reply: 'We are open from 9 to 18 on weekdays.', chunks: 1 });
// the bench sends tens of thousands of requests: keep no record of them
setInterval(() => fake.requests.splice(0), 1000).unref();
console.log(`listening ${fake.url}`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
