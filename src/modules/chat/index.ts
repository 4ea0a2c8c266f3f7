export { chatRoutes } from './routes.js';
export { createChat, visitorQuestions } from './module.js';
export type { PersonNotice } from './handoff.js';
