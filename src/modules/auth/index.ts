export { AuthRepo } from './repo.js';
export { AuthService, type Actor, type AuthUser, type TeamRole } from './service.js';
export { authenticationPlugin, currentActor, currentUser } from './plugin.js';
export { authRoutes } from './routes.js';
export { userSchema, emailField } from './schemas.js';
export { createAuth } from './module.js';
