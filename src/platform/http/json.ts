import type { FastifyReply } from 'fastify';

/**
 * Sends JSON serialized beforehand (a cached response) as it is: Fastify passes a string with a
 * JSON content type straight through, so the route's response schema documents it without
 * checking and serializing it again.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
