export { createChannels } from './module.js';
export { channelRoutes } from './routes.js';
