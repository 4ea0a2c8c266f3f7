export { adminUiRoutes } from './routes.js';
