import { type Clock, isoNow } from '../../platform/clock.js';
import { tooManyRequests } from '../../platform/http/errors.js';
import type { PlanHolder, PlanService } from './plans.js';
import type { LimitsRepo } from './repo.js';

export type Account = PlanHolder & { id: string };

/** The month's messages just reached 80% or 100% of the plan's quota (once each per month). */
export interface QuotaCrossing {
  account: Account;
  /** 2026-11 */
  month: string;
  used: number;
  max: number;
  percent: 80 | 100;
}

/** What a visitor reads when the owner's quota is used up: the owner's plan is none of their business. */
export const VISITOR_UNAVAILABLE_TEXT = 'This assistant is unavailable right now, please try again later.';

export interface MessageQuotaDeps {
  repo: LimitsRepo;
  plans: PlanService;
  clock: Clock;
  /**
   * runs inside the message's transaction when this message made the month reach 80% or 100%
   * (the owner is warned by e-mail): a message is counted one at a time, so each threshold is
   * reached by exactly one message a month
   */
  onCrossing?: (crossing: QuotaCrossing) => void;
}

/**
 * The plan's monthly message quota (docs/API.md "Plans"): visitor and owner messages per account per
 * calendar month (UTC), over both chat routes.
 */
export class MessageQuota {
  private readonly repo: LimitsRepo;
  private readonly plans: PlanService;
  private readonly clock: Clock;
  private readonly onCrossing: (crossing: QuotaCrossing) => void;

  constructor({ repo, plans, clock, onCrossing = () => undefined }: MessageQuotaDeps) {
    this.repo = repo;
    this.plans = plans;
    this.clock = clock;
    this.onCrossing = onCrossing;
  }

  /**
   * Counts one message, or refuses it with 429 and the plan-limit detail object when the month's
   * quota is used up. Call inside the transaction that stores the message, so the check and the
   * count cannot be split by another request and a refused message leaves nothing behind.
   */
  consume(account: Account, forVisitor?: { message: string }): void {
    const now = this.clock.now();
    const month = now.toISOString().slice(0, 7);
    const max = this.plans.planOf(account).monthly_messages;
    const current = this.repo.monthlyMessages(account.id, month);
    if (current >= max) {
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      // a visitor reads a sentence meant for them (the widget shows it without a Retry button);
      // the owner reads which limit it is
      const message =
        forVisitor?.message ??
        `Monthly message quota reached: your ${account.plan_id} plan allows ${max} messages a month`;
      throw tooManyRequests({ message, current, max, upgrade_required: true }, (nextMonth - now.getTime()) / 1000);
    }
    this.repo.addMonthlyMessage(account.id, month);
    const used = current + 1;
    // the higher threshold only, when one message reaches both (a quota of 1)
    for (const percent of [100, 80] as const) {
      if (used === Math.ceil((max * percent) / 100)) {
        this.onCrossing({ account, month, used, max, percent });
        break;
      }
    }
  }

  /** Messages counted this month (UTC) and the plan's quota. */
  usage(account: Account): { month: string; used: number; max: number } {
    const month = isoNow(this.clock).slice(0, 7);
    return {
      month,
      used: this.repo.monthlyMessages(account.id, month),
      max: this.plans.planOf(account).monthly_messages,
    };
  }
}

/** The owner's warning e-mail when the month's messages reach 80% or 100% of the plan. */
export function quotaWarningMail(crossing: QuotaCrossing, publicUrl: string): { subject: string; body: string } {
  const { used, max, percent, month } = crossing;
  const count = (n: number) => n.toLocaleString('en');
  const subject =
    percent === 100
      ? "Your agents have used this month's messages"
      : `Your agents have used ${percent}% of this month's messages`;
  const effect =
    percent === 100
      ? 'Until the month ends (UTC), your agents do not answer: visitors read that the assistant is unavailable right now (or the sentence you set for an agent).'
      : 'When all of them are used, your agents stop answering visitors until the month ends (UTC).';
  const body = [
    `Your account has used ${count(used)} of the ${count(max)} messages its ${crossing.account.plan_id} plan allows in ${month}.`,
    '',
    effect,
    'The administrator of this server can move the account to a plan with more messages.',
    '',
    `Usage: ${publicUrl}/#/analytics`,
  ].join('\n');
  return { subject, body };
}
