import type { Clock } from '../../platform/clock.js';
import { tooManyRequests } from '../../platform/http/errors.js';
import type { PlanHolder, PlanService } from './plans.js';
import type { LimitsRepo } from './repo.js';

export type Account = PlanHolder & { id: string };

/**
 * The plan's monthly message quota (CONTRACT "Plans"): visitor and owner messages per account per
 * calendar month (UTC), over both chat routes.
 */
export class MessageQuota {
  constructor(
    private readonly repo: LimitsRepo,
    private readonly plans: PlanService,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts one message, or refuses it with 429 and the plan-limit detail object when the month's
   * quota is used up. Call inside the transaction that stores the message, so the check and the
   * count cannot be split by another request and a refused message leaves nothing behind.
   */
  consume(account: Account): void {
    const now = this.clock.now();
    const month = now.toISOString().slice(0, 7);
    const max = this.plans.planOf(account).monthly_messages;
    const current = this.repo.monthlyMessages(account.id, month);
    if (current >= max) {
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      throw tooManyRequests(
        { message: `Monthly message quota reached: your ${account.plan_id} plan allows ${max} messages a month`, current, max, upgrade_required: true },
        (nextMonth - now.getTime()) / 1000,
      );
    }
    this.repo.addMonthlyMessage(account.id, month);
  }
}
