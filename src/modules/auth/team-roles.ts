/**
 * Route config for the routes an `operator` may use (docs/API-NOTES.md "Team"): conversations,
 * handoff and chat replies, leads, the unanswered-questions inbox, reading agents and knowledge.
 * Every other authenticated route needs `manager` unless it says otherwise.
 */
export const OPERATOR_ALLOWED = { teamRole: 'operator' } as const;
