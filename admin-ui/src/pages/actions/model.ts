import type { ActionType, AgentAction, AgentActionInput } from '../../types.js';

/** as the server allows (src/modules/actions/routes.ts) */
export const LIMITS = {
  name: 64,
  description: 1000,
  url: 2000,
  parameters: 10,
  parameterName: 64,
  parameterDescription: 500,
  responseFields: 20,
  slotMinutes: { min: 5, max: 480 },
  daysAhead: { min: 1, max: 90 },
} as const;

/** The kinds of action, as the owner reads them: a label and what it does, in a sentence. */
export const KINDS: Array<{ type: ActionType; label: string; what: string }> = [
  {
    type: 'lookup',
    label: 'Look-up',
    what: 'The agent fetches facts from your system while it chats (an order’s status, stock, an account’s balance) and answers with them. Nothing changes on your side.',
  },
  {
    type: 'do',
    label: 'Do',
    what: 'The agent does something for the visitor in your system (cancels an order, books a table, opens a ticket). It runs only after the visitor has pressed Confirm on what is about to happen.',
  },
  {
    type: 'booking',
    label: 'Booking',
    what: 'The visitor picks a free time from your calendar for a meeting or a call, and confirms it; they get a calendar invitation.',
  },
];

export const kindLabel = (type: ActionType) => KINDS.find((k) => k.type === type)?.label ?? type;

export interface ParameterDraft {
  /** a key for the row while it is edited (rows are added and removed) */
  key: number;
  name: string;
  description: string;
  required: boolean;
}

/** The form's state: every field of every kind, so switching the kind back loses nothing. */
export interface ActionDraft {
  type: ActionType;
  name: string;
  description: string;
  url: string;
  parameters: ParameterDraft[];
  /** the response fields, one per line */
  responseFields: string;
  requiresVerified: boolean;
  calendarUrl: string;
  slotMinutes: number;
  daysAhead: number;
}

let rowKey = 0;
export const newParameter = (): ParameterDraft => ({ key: ++rowKey, name: '', description: '', required: true });

/** A new action's form, or an existing one's. */
export function draftOf(action?: AgentAction): ActionDraft {
  return {
    type: action?.type ?? 'lookup',
    name: action?.name ?? '',
    description: action?.description ?? '',
    url: action?.url ?? '',
    parameters: (action?.parameters ?? []).map((p) => ({
      key: ++rowKey,
      name: p.name,
      description: p.description,
      required: p.required ?? true,
    })),
    responseFields: (action?.response_fields ?? []).join('\n'),
    requiresVerified: action?.requires_verified ?? false,
    calendarUrl: action?.calendar_url ?? '',
    slotMinutes: action?.slot_minutes ?? 30,
    daysAhead: action?.days_ahead ?? 14,
  };
}

/** A URL template that names the visitor ({{user.id}} ...): the server lets only verified visitors run it. */
export const namesVisitor = (url: string) => /\{\{\s*user\./.test(url);

/** What the form sends: the fields of its kind (the server checks them, and says which is wrong). */
export function bodyOf(d: ActionDraft): AgentActionInput {
  const common = { type: d.type, name: d.name.trim(), description: d.description.trim() };
  if (d.type === 'booking')
    return {
      ...common,
      url: null,
      parameters: [],
      response_fields: [],
      calendar_url: d.calendarUrl.trim(),
      slot_minutes: d.slotMinutes,
      days_ahead: d.daysAhead,
    };
  return {
    ...common,
    url: d.url.trim(),
    parameters: d.parameters.map((p) => ({
      name: p.name.trim(),
      description: p.description.trim(),
      required: p.required,
    })),
    response_fields: d.responseFields
      .split('\n')
      .map((f) => f.trim())
      .filter(Boolean),
    requires_verified: d.requiresVerified || namesVisitor(d.url),
    calendar_url: null,
  };
}
