// The floor for the chat figures: a Fastify server whose chat turn is only what every turn must do
// whatever the product, the two provider calls through the OpenAI SDK (embed the question, then
// complete), with no database, retrieval or history. Started like the app (its own node process,
// the app's V8 flags, loopback, logger off), so its overhead is what this machine gives any
// Node.js server of this shape: the part of the product's overhead no change to the product removes.
import Fastify from 'fastify';
import OpenAI from 'openai';

const client = new OpenAI({ apiKey: 'bench-key', baseURL: process.env.OPENAI_BASE_URL });
const app = Fastify({ logger: false });

app.post('/api/public/chat/:id', async (req, reply) => {
  const { message, session_id } = req.body;
  await client.embeddings.create({ model: 'text-embedding-3-small', input: [message], dimensions: 1536 });
  const messages = [{ role: 'user', content: message }];
  if (req.headers.accept !== 'text/event-stream') {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    return { message: completion.choices[0].message.content, session_id };
  }
  // the app's stream: one `delta` event per piece of the answer, then `done`
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
  for await (const chunk of stream) {
    const text = chunk.choices[0]?.delta?.content;
    if (text) reply.raw.write(`event: delta\ndata: ${JSON.stringify({ text })}\n\n`);
  }
  reply.raw.end(`event: done\ndata: ${JSON.stringify({ session_id })}\n\n`);
});
app.get('/api/health', async () => ({ status: 'ok' }));

await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
