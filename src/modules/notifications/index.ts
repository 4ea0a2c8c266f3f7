export { createNotifications } from './module.js';
export { notificationsRoutes } from './routes.js';
