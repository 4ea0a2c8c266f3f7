export { chatRoutes } from './routes.js';
export { conversationHeld, createChat, visitorQuestions } from './module.js';
export type { PersonNotice } from './handoff.js';
