/** Expected values the analytics suites share (modules/analytics, analytics-outcomes). */

/** The outcome fields of issue 23.7 where nothing was resolved, escalated or rated. */
export const NO_OUTCOME_COUNTS = {
  conversations_resolved: 0,
  resolution_rate: 0,
  escalations: 0,
  thumbs_up: 0,
  thumbs_down: 0,
  thumbs_up_ratio: null,
};

/** A trends series as the API gives it: one `{ date, count }` per entry of `counts`, in their order. */
export const perDay = (counts: Record<string, number>) =>
  Object.entries(counts).map(([date, count]) => ({ date, count }));
