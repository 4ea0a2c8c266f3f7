export { ChatRepo } from './repo.js';
export { ChatService, MAX_MESSAGE_CHARS, type ChatResult, type SourceRef } from './service.js';
export { chatRoutes } from './routes.js';
export { HandoffService } from './handoff.js';
export { createChat, visitorQuestions, type ChatDeps } from './module.js';
