/**
 * The agent fields of issue 22 (lead form timing and consent, widget language and wording) that
 * both the Agent object and the public agent info carry; the suites' key lists share them.
 */
export const LEAD_FORM_AND_LANGUAGE_KEYS = [
  'lead_form_timing',
  'lead_form_after_messages',
  'lead_consent_text',
  'privacy_policy_url',
  'language',
  'widget_texts',
];

/** Their values on a new agent: contact details asked after the first answer, the language as the visitor's browser has it. */
export const LEAD_FORM_AND_LANGUAGE_DEFAULTS = {
  lead_form_timing: 'after_messages',
  lead_form_after_messages: 1,
  lead_consent_text: null,
  privacy_policy_url: null,
  language: 'auto',
  widget_texts: {},
};
