import type { WidgetLeadRow } from './tables.js';

/** Header-safe: a name or phone never adds lines to the subject or body layout. */
export function oneLine(s: string): string {
  return s.replace(/[\r\n\t]+/g, ' ').trim();
}

/**
 * The lines of a lead alert that name the lead. The alert's body holds them exactly, so erasing a
 * lead finds its alert by them (mail_outbox has no lead column): keep the two in step by building
 * both from here.
 */
export function leadAlertLines(lead: Pick<WidgetLeadRow, 'name' | 'phone' | 'created_at'>): string[] {
  return [`Name:  ${oneLine(lead.name)}`, `Phone: ${oneLine(lead.phone)}`, `Time:  ${lead.created_at} (UTC)`];
}

/** The admin UI's page of an agent's leads, as the alert links to it (after PUBLIC_URL). */
export function leadsPagePath(chatbotId: string): string {
  return `/#/agents/${chatbotId}/leads`;
}
