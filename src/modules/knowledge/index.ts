export { KnowledgeService } from './service.js';
export type { Passage } from './passage.js';
export { knowledgeRoutes } from './routes.js';
export { estimateTokens } from './chunker.js';
export { createKnowledge } from './module.js';
