import type { ActionCard } from './api.js';

/**
 * What the widget keeps per agent in the visitor's localStorage: the session id, whether the lead
 * form was answered or skipped, how many answers the conversation has had, the visitor's name,
 * and the transcript (there is no public history endpoint:
 * a session id is not a credential, so history lives only with the visitor).
 */

export interface Source {
  source_id: string;
  name: string;
  url: string | null;
}

export interface StoredMessage {
  role: 'user' | 'assistant';
  content: string;
  sources?: Source[];
  /** assistant messages: the server's id (for the thumbs) and the visitor's thumbs on it */
  id?: string;
  feedback?: 1 | -1;
  /** written by a person who took the conversation over (no thumbs) */
  from_person?: boolean;
  /** a person's message: the name they chose to show visitors */
  sender_name?: string;
  /** a line about the conversation itself ("a person has joined"), kept in its place in the transcript */
  note?: NoteKey;
  /** a `handoff_closed` note: when the office hours open next (ISO), shown in the visitor's time */
  at?: string;
  /** an answer with an action's card under it (a reload or the site's next page shows it again) */
  action?: ActionCard;
  /** how the card's run ended (its status); absent while it waits for the visitor */
  action_status?: string;
}

/** The notes a transcript can hold, by their text's key. */
export const NOTE_KEYS = ['asked_person', 'person_joined', 'person_left', 'handoff_timeout', 'handoff_closed'] as const;
export type NoteKey = (typeof NOTE_KEYS)[number];

export interface VisitorState {
  session_id: string;
  lead_done: boolean;
  /** "Not now" on the lead form asked during the conversation: not asked again in this one */
  lead_skipped: boolean;
  /** answers received in this conversation (the transcript keeps only the last messages) */
  answers: number;
  user_name?: string;
  messages: StoredMessage[];
  /** the visitor asked for a person in this conversation */
  escalated?: boolean;
  /** the greeting bubble was shown (once per visitor session) */
  greeted?: boolean;
  /** a person handles the conversation now (live handoff) */
  person?: boolean;
  /** the visitor was told nobody took the escalation in time, or that nobody can come now (told once) */
  handoff_told?: boolean;
}

/** Older messages drop off; enough to pick a conversation back up, small enough for localStorage. */
export const MAX_STORED_MESSAGES = 50;

const keyFor = (agentId: string) => `chat-agent:${agentId}`;

function uuid(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // crypto.randomUUID needs a secure context; plain-http sites still get a v4 UUID
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function freshState(): VisitorState {
  return { session_id: uuid(), lead_done: false, lead_skipped: false, answers: 0, messages: [] };
}

function storage(): Storage | null {
  try {
    return window.localStorage; // throws when storage is blocked (sandboxed iframes, some privacy modes)
  } catch {
    return null;
  }
}

export function loadState(agentId: string): VisitorState {
  const raw = storage()?.getItem(keyFor(agentId));
  if (raw) {
    try {
      const parsed = JSON.parse(raw) as Partial<VisitorState>;
      if (typeof parsed.session_id === 'string' && parsed.session_id) {
        const messages = Array.isArray(parsed.messages)
          ? parsed.messages.filter(isMessage).slice(-MAX_STORED_MESSAGES)
          : [];
        const answers = parsed.answers;
        return {
          session_id: parsed.session_id,
          lead_done: parsed.lead_done === true,
          lead_skipped: parsed.lead_skipped === true,
          // a state from an older widget has no count: its stored answers are the best guess
          answers:
            typeof answers === 'number' && Number.isInteger(answers) && answers >= 0
              ? answers
              : messages.filter((m) => m.role === 'assistant').length,
          user_name: typeof parsed.user_name === 'string' ? parsed.user_name : undefined,
          messages,
          escalated: parsed.escalated === true,
          greeted: parsed.greeted === true,
          person: parsed.person === true,
          handoff_told: parsed.handoff_told === true,
        };
      }
    } catch {
      // a corrupt entry starts a new visit
    }
  }
  return freshState();
}

export function saveState(agentId: string, state: VisitorState): void {
  state.messages = state.messages.slice(-MAX_STORED_MESSAGES);
  try {
    storage()?.setItem(keyFor(agentId), JSON.stringify(state));
  } catch {
    // quota exceeded: the chat still works, it just will not survive a reload
  }
}

function isMessage(m: unknown): m is StoredMessage {
  const x = m as StoredMessage;
  if (!x || (x.role !== 'user' && x.role !== 'assistant') || typeof x.content !== 'string') return false;
  // a page script may have written anything here: a note must be one we know
  return x.note === undefined || (NOTE_KEYS as readonly unknown[]).includes(x.note);
}
