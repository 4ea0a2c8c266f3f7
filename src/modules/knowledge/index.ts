export { KnowledgeRepo } from './repo.js';
export { KeywordSearcher } from './keyword-searcher.js';
export { KnowledgeService, ftsQuery, type Passage } from './service.js';
export { VectorIndex } from './vector-index.js';
export { knowledgeRoutes, sourceSchema } from './routes.js';
export { chunkText } from './chunker.js';
export { IngestionService, INGEST_JOB } from './ingestion.js';
export { StorageQuota } from './storage-quota.js';
export { AnswerGapsService, questionKey, soundsUnsure } from './gaps.js';
