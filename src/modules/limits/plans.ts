import type { Clock } from '../../platform/clock.js';
import type { Plan, Plans } from '../../config/index.js';
import { forbidden, paymentRequired } from '../../platform/http/errors.js';

export interface PlanHolder {
  plan_id: string;
  plan_expires_at: string | null;
}

/**
 * The plan table (built-in or PLANS_FILE) and the checks that read it. A user whose plan_id is no
 * longer in the table (the file changed) falls back to the default plan rather than failing.
 */
export class PlanService {
  constructor(
    private readonly plans: Plans,
    private readonly defaultPlanId: string,
    private readonly clock: Clock,
  ) {}

  planOf(holder: PlanHolder): Plan {
    return this.plans[holder.plan_id] ?? this.plans[this.defaultPlanId]!;
  }

  /** The default plan's limits, for callers with no account (public routes with no agent). */
  defaultPlan(): Plan {
    return this.plans[this.defaultPlanId]!;
  }

  /** 402 when the holder's plan has an expiry in the past (docs/API.md "Plans"). */
  assertNotExpired(holder: PlanHolder): void {
    if (holder.plan_expires_at && Date.parse(holder.plan_expires_at) <= this.clock.now().getTime()) {
      throw paymentRequired(`Your plan expired on ${holder.plan_expires_at}; renew it to continue`);
    }
  }

  /** 403 with the limit detail object when `current` has reached the plan's `max_agents`. */
  assertCanAddAgent(holder: PlanHolder, current: number): void {
    const max = this.planOf(holder).max_agents;
    if (current >= max) {
      throw forbidden({
        message: `Agent limit reached: your ${holder.plan_id} plan allows ${max} agents`,
        current,
        max,
        upgrade_required: true,
      });
    }
  }

  /** 403 with the limit detail object when `current` teammates (and open invitations) reach `max_members`. */
  assertCanAddMember(holder: PlanHolder, current: number): void {
    const max = this.planOf(holder).max_members;
    if (current >= max) {
      throw forbidden({
        message: `Team limit reached: your ${holder.plan_id} plan allows ${max} teammates`,
        current,
        max,
        upgrade_required: true,
      });
    }
  }

  assertCustomBranding(holder: PlanHolder): void {
    if (!this.planOf(holder).custom_branding) {
      throw forbidden({
        message: `Custom branding is not part of your ${holder.plan_id} plan`,
        current: 0,
        max: 0,
        upgrade_required: true,
      });
    }
  }
}
