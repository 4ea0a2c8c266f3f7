export { AuthRepo } from './repo.js';
export { AuthService, type AuthUser } from './service.js';
export { authenticationPlugin, currentUser } from './plugin.js';
export { authRoutes } from './routes.js';
export { userSchema, emailField } from './schemas.js';
export * as authTables from './tables.js';
export { createAuth, type AuthDeps } from './module.js';
export { registrationRefusal } from './service.js';
