export { webRoutes } from './routes.js';
