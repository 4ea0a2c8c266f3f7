export { KnowledgeService, type Passage } from './service.js';
export { knowledgeRoutes } from './routes.js';
export { estimateTokens } from './chunker.js';
export { createKnowledge } from './module.js';
