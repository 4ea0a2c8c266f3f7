export { adminUiRoutes, ADMIN_CSP, type AdminUiRoutesOptions } from './routes.js';
export { adminAssetsDir, loadAdminAssets, type AdminAssets } from './assets.js';
