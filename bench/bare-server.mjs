// The baseline for the HTTP figures: a bare Fastify server answering one route with a fixed JSON
// body, started the same way as the app (its own node process, loopback, logger off).
import Fastify from 'fastify';

const body = JSON.parse(process.env.BARE_BODY ?? '{}');
const app = Fastify({ logger: false });
app.get('/api/public/chatbot/:chatbot_id', async () => body);
app.get('/api/health', async () => ({ status: 'ok' }));
await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
