export { AuthRepo } from './repo.js';
export { AuthService, type AuthUser } from './service.js';
export { authenticationPlugin, currentUser } from './plugin.js';
export { authRoutes } from './routes.js';
export { userSchema, emailField } from './schemas.js';
export { createAuth } from './module.js';
