export { chatRoutes } from './routes.js';
export { channelActivity, conversationHeld, createChat, visitorQuestions } from './module.js';
export type { PersonNotice } from './handoff.js';
export type { ChannelTurns } from './service.js';
export { answerTestQuestion } from './test-answer.js';
export type { AskDeps } from './turn-request.js';
