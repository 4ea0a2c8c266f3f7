export { PlanService, type PlanHolder } from './plans.js';
