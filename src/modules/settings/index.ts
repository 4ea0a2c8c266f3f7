export { ServerSettings } from './service.js';
export { settingsRoutes } from './routes.js';
export { SettingsKey, decryptValue, encryptValue } from './crypto.js';
