export { webRoutes, type WebRoutesOptions } from './routes.js';
export { widgetAssetsDir, loadWidgetAssets, type WidgetAssets } from './assets.js';
