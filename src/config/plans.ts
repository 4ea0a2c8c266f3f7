import { z } from 'zod';

/** The plan table's shape and the built-in plans (docs/CONFIGURATION.md "Plans"). */

/** a plan in PLANS_FILE without max_storage_mb gets this much */
export const DEFAULT_MAX_STORAGE_MB = 1000;
/** a plan in PLANS_FILE without max_members gets this many teammates */
export const DEFAULT_MAX_MEMBERS = 5;
/** a plan in PLANS_FILE without webhook_deliveries_per_hour gets this many */
export const DEFAULT_WEBHOOK_DELIVERIES_PER_HOUR = 1000;

/** a plan in PLANS_FILE without monthly_action_runs gets this many */
export const DEFAULT_MONTHLY_ACTION_RUNS = 1000;

/** a plan in PLANS_FILE without max_tests_per_agent gets this many */
export const DEFAULT_MAX_TESTS_PER_AGENT = 200;

/** One plan's limits (docs/API.md "Plans"). */
export const planSchema = z.object({
  max_agents: z.number().int().min(0),
  max_account_leads: z.number().int().min(0),
  monthly_messages: z.number().int().min(0),
  requests_per_minute: z.number().int().min(1),
  requests_per_hour: z.number().int().min(1),
  custom_branding: z.boolean(),
  /**
   * Storage an account may use, in MB (1,048,576 bytes, like the upload limit): the text of its passages plus uploads
   * waiting to be read (docs/API-NOTES.md "Storage"). Optional in PLANS_FILE for files written before it.
   */
  max_storage_mb: z.number().int().min(0).default(DEFAULT_MAX_STORAGE_MB),
  /**
   * Webhook POSTs an account's webhooks may make in any rolling hour, retries included (docs/API-NOTES.md
   * "Webhooks"); past it a delivery is not sent and its log says why. Optional in PLANS_FILE.
   */
  webhook_deliveries_per_hour: z.number().int().min(0).default(DEFAULT_WEBHOOK_DELIVERIES_PER_HOUR),
  /**
   * Teammates an account may have besides its owner, invitations not yet used counted
   * (docs/API-NOTES.md "Team"). Optional in PLANS_FILE.
   */
  max_members: z.number().int().min(0).default(DEFAULT_MAX_MEMBERS),
  /**
   * Action runs (look-ups, confirmed `do` calls, bookings) an account's agents may make in a
   * calendar month, UTC (docs/ACTIONS.md). Past it the agent says the action is not available.
   * Optional in PLANS_FILE.
   */
  monthly_action_runs: z.number().int().min(0).default(DEFAULT_MONTHLY_ACTION_RUNS),
  /**
   * Test questions one agent may have (docs/API-NOTES.md "Test questions"); a run runs them all.
   * Optional in PLANS_FILE.
   */
  max_tests_per_agent: z.number().int().min(0).default(DEFAULT_MAX_TESTS_PER_AGENT),
});
export type Plan = z.infer<typeof planSchema>;
export const plansSchema = z
  .record(z.string().min(1).max(64), planSchema)
  .refine((p) => Object.keys(p).length > 0, 'at least one plan');
export type Plans = Record<string, Plan>;

/** a limit that never matters: the admin UI shows it as "unlimited" (1e9; as MB, bytes stay exact in a double) */
export const UNLIMITED = 1_000_000_000;

export const BUILT_IN_PLANS: Plans = {
  free: {
    max_agents: 3,
    max_account_leads: 100,
    monthly_messages: 1000,
    requests_per_minute: 60,
    requests_per_hour: 1000,
    custom_branding: false,
    max_storage_mb: 200,
    webhook_deliveries_per_hour: 50,
    max_members: 2,
    monthly_action_runs: 100,
    max_tests_per_agent: 50,
  },
  starter: {
    max_agents: 10,
    max_account_leads: 1000,
    monthly_messages: 10000,
    requests_per_minute: 120,
    requests_per_hour: 5000,
    custom_branding: true,
    max_storage_mb: 2000,
    webhook_deliveries_per_hour: 500,
    max_members: 5,
    monthly_action_runs: 2000,
    max_tests_per_agent: 200,
  },
  pro: {
    max_agents: 50,
    max_account_leads: 10000,
    monthly_messages: 100000,
    requests_per_minute: 300,
    requests_per_hour: 20000,
    custom_branding: true,
    max_storage_mb: 20000,
    webhook_deliveries_per_hour: 5000,
    max_members: 20,
    monthly_action_runs: 20000,
    max_tests_per_agent: 1000,
  },
  // The business running its own server: the first account gets it (FIRST_ACCOUNT_PLAN), so the
  // owner is not held to the free plan's 1,000 messages. Limits as high as never to matter; the
  // request rates stay bounded (a leaked token still cannot hammer the box).
  owner: {
    max_agents: UNLIMITED,
    max_account_leads: UNLIMITED,
    monthly_messages: UNLIMITED,
    requests_per_minute: 6000,
    requests_per_hour: 100000,
    custom_branding: true,
    max_storage_mb: UNLIMITED,
    webhook_deliveries_per_hour: 100000,
    max_members: UNLIMITED,
    monthly_action_runs: UNLIMITED,
    max_tests_per_agent: 5000,
  },
};
