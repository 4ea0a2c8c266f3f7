export {
  ServerSettings,
  keyHint,
  safeUrl,
  type SettingsView,
  type SettingSource,
  type SettingName,
} from './service.js';
export { settingsRoutes } from './routes.js';
export { SETTINGS_KEY_FILE, SettingsKey, decryptValue, encryptValue } from './crypto.js';
export { appSettings } from './tables.js';
