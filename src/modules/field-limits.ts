/**
 * The longest text each field of the admin UI's forms may hold, in characters: the one home of
 * these numbers. The routes' zod schemas read them (400 over them), and the admin UI gives its
 * inputs the same `maxLength` (it imports this file, which is why it holds constants only and
 * imports nothing).
 */
export const FIELD_MAX = {
  /** an agent's fields (PUT /api/chatbots/{id}) */
  agent: {
    name: 100,
    description: 2000,
    model: 100,
    instructions: 20000,
    welcome_message: 1000,
    no_answer_message: 1000,
    unavailable_message: 500,
    /** logo, avatar and privacy policy addresses */
    url: 2000,
    font_family: 100,
    powered_by_text: 100,
    /** one of the widget's texts in the owner's wording */
    widget_text: 500,
    lead_consent_text: 500,
    greeting_message: 200,
    /** the owner's synonym groups (lines) and one line's length */
    synonyms: 100,
    synonym_line: 300,
    /** an office-hours time, HH:MM */
    office_hours_time: 5,
  },
  email: 254,
  /** an account's name (registration) */
  account_name: 100,
  password: 128,
  /** a chat message: a visitor's, the owner's test or a person's reply */
  message: 4000,
  conversation_search: 200,
  source: { website_url: 2000, text_name: 200, qa_question: 500, qa_answer: 5000 },
  /** a test question (POST /api/chatbots/{id}/tests) and one phrase a right answer contains */
  test: { question: 1000, phrase: 200 },
  /** an account's own lead (POST /api/leads) */
  lead: { name: 200, contact: 300 },
  webhook_url: 2000,
  /** the inbox: an internal note, a saved reply (its shortcut and text), a person's display name */
  inbox: { note: 4000, shortcut: 32, saved_reply: 4000, display_name: 100 },
  /** server settings: a provider's key, base URL or host, the mail server */
  settings: { api_key: 500, base_url: 500, smtp_url: 1000, smtp_from: 320 },
} as const;
