import type { VisitorIdentity } from './identity.js';
import type { Source } from './storage.js';
import { readEventStream } from './shared/sse.js';

/** Public agent info (docs/API.md "Objects", plus `status`). */
export interface AgentInfo {
  id: string;
  name: string;
  welcome_message: string;
  primary_color: string;
  secondary_color: string;
  accent_color: string;
  logo_url: string | null;
  avatar_url: string | null;
  font_family: string;
  font_size: number;
  bubble_style: 'rounded' | 'square';
  widget_theme: 'light' | 'dark' | 'auto';
  widget_position: 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left';
  widget_size: 'small' | 'medium' | 'large';
  auto_expand: boolean;
  lead_capture_enabled: boolean;
  powered_by_text: string | null;
  status: 'active' | 'inactive';
  /** when the lead form shows (absent from older servers: before the first message) */
  lead_form_timing?: 'before_chat' | 'after_messages';
  /** with `after_messages`: after this many answers */
  lead_form_after_messages?: number;
  /** the owner's consent sentence under the lead form; null: the language's own */
  lead_consent_text?: string | null;
  privacy_policy_url?: string | null;
  /** `auto`: the visitor's browser language */
  language?: string;
  /** the owner's wording of the fixed texts, by key (i18n.ts) */
  widget_texts?: Record<string, string>;
  /** questions shown as buttons before the first message */
  starter_questions?: string[];
  /** a bubble beside the closed launcher after `greeting_delay_s` seconds; null: none */
  greeting_message?: string | null;
  greeting_delay_s?: number;
  /** whether a person can be asked for now (office hours, someone online); absent from older servers */
  handoff?: Handoff;
}

/** Whether a person can come now; else when the office hours open next (ISO; null: not known). */
export interface Handoff {
  available: boolean;
  next_opening: string | null;
}

/**
 * Where an answer comes from: the source, and the place in it. `url` is a website page's own
 * address; `title` the page's or document's title; `page` a PDF page. Messages stored by an older
 * widget have neither `title` nor `page`.
 */
export interface CitedSource extends Source {
  title?: string | null;
  page?: number | null;
}

export interface ChatAnswer {
  message: string;
  conversation_id: string;
  session_id: string;
  sources: CitedSource[];
  /** the stored answer's id, for the thumbs (absent from older servers) */
  message_id?: string | null;
  /** 'person': a person handles the conversation, the agent did not answer (`message` is empty) */
  handled_by?: 'agent' | 'person';
  /** an action waiting for the visitor's Confirm (absent from older servers) */
  action?: ActionCard | null;
}

/** What an action will do, shown for the visitor to confirm (a `do`) or to pick a time and confirm (a booking). */
export interface ActionCard {
  run_id: string;
  action_name: string;
  type: 'do' | 'booking';
  description: string;
  inputs: Record<string, string>;
  /** do: the request it will make ("POST https://...") */
  sends: string | null;
  /** booking: the free times (ISO UTC) */
  slots: { start: string; end: string }[];
  time_zone: string | null;
  /** booking: the visitor gives an e-mail address with the choice */
  needs_email: boolean;
}

/** The end of the visitor's Confirm or Cancel: the agent's message, and the run's state. */
export interface ActionSettled {
  message: string;
  message_id: string | null;
  /** `awaiting_confirmation`: the choice must be fixed (the card stays usable) */
  run: { id: string; status: string; outcome: string | null };
}

/** An action the widget shows as a button (no model on the server to call it). */
export interface PublicAction {
  id: string;
  type: 'lookup' | 'do' | 'booking';
  name: string;
  description: string;
  parameters: { name: string; description: string; required: boolean }[];
  requires_verified: boolean;
}

/** A person's message on the live stream (live handoff). */
export interface PersonMessage {
  id: string;
  content: string;
  from_person: boolean;
  /** the name the person chose to show visitors (absent from older servers) */
  sender_name?: string | null;
}

/** A refused or failed request: `status` 0 means the network (or a broken stream) failed. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** seconds, from Retry-After on a 429 */
    readonly retryAfter: number | null = null,
    /**
     * the owner's plan is used up for now (a plan-limit body): `detail` is the server's sentence for
     * visitors, and retrying cannot help
     */
    readonly unavailable = false,
  ) {
    super(detail);
  }
}

export class Api {
  constructor(
    private readonly origin: string,
    private readonly agentId: string,
  ) {}

  private url(kind: 'chatbot' | 'chat' | 'lead', action?: 'feedback' | 'escalate'): string {
    return `${this.origin}/api/public/${kind}/${encodeURIComponent(this.agentId)}${action ? `/${action}` : ''}`;
  }

  /** `/api/public/chat/{id}/...` */
  private chatPath(path: string): string {
    return `${this.url('chat')}/${path}`;
  }

  /** The session's live stream (Server-Sent Events): a person's messages and handoff changes. */
  eventsUrl(sessionId: string): string {
    return `${this.url('chat')}/events?session_id=${encodeURIComponent(sessionId)}`;
  }

  /** The visitor's thumbs on an answer: 1 up, -1 down, 0 none. */
  async feedback(body: { session_id: string; message_id: string; value: 1 | -1 | 0 }): Promise<void> {
    await request(this.url('chat', 'feedback'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /**
   * The visitor asks for a person to take over the conversation: whether one can come now (an
   * older server does not say: as if one could).
   */
  async escalate(body: { session_id: string }): Promise<Handoff> {
    const res = await request(this.url('chat', 'escalate'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.json().catch(() => null)) as { handoff?: Partial<Handoff> } | null;
    const handoff = answer?.handoff;
    return {
      available: handoff?.available !== false,
      next_opening: typeof handoff?.next_opening === 'string' ? handoff.next_opening : null,
    };
  }

  /** The agent's actions; `buttons`: shown as buttons (the server has no model to call them). */
  async actions(): Promise<{ buttons: boolean; actions: PublicAction[] }> {
    const res = await request(this.chatPath('actions'), { headers: { accept: 'application/json' } });
    return (await res.json()) as { buttons: boolean; actions: PublicAction[] };
  }

  /** Starts an action from its button: the chat's answer (a look-up's result, or a card). */
  async startAction(
    actionId: string,
    body: { session_id: string; inputs: Record<string, string>; user?: VisitorIdentity },
  ): Promise<ChatAnswer> {
    return postJson(this.chatPath(`actions/${encodeURIComponent(actionId)}/start`), body) as Promise<ChatAnswer>;
  }

  /** The visitor's Confirm (`confirm`) or Cancel (`cancel`) on an action's card. */
  async settleAction(
    runId: string,
    answer: 'confirm' | 'cancel',
    body: { session_id: string; start?: string; email?: string; name?: string },
  ): Promise<ActionSettled> {
    return postJson(
      this.chatPath(`action-runs/${encodeURIComponent(runId)}/${answer}`),
      body,
    ) as Promise<ActionSettled>;
  }

  async info(): Promise<AgentInfo> {
    const res = await request(this.url('chatbot'), { headers: { accept: 'application/json' } });
    return (await res.json()) as AgentInfo;
  }

  async lead(body: { name: string; phone: string; session_id: string }): Promise<void> {
    await request(this.url('lead'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /**
   * Sends one message and streams the answer: `onDelta` gets the text so far. Asks for Server-Sent
   * Events; when something between us and the server buffers or rewrites the answer into plain JSON
   * (some proxies do), the JSON answer is used as is, so the visitor always gets the reply.
   */
  async chat(
    body: { message: string; session_id: string; user_name?: string; user?: VisitorIdentity },
    onDelta: (textSoFar: string) => void,
  ): Promise<ChatAnswer> {
    const res = await request(this.url('chat'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
      body: JSON.stringify(body),
    });
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream')) return (await res.json()) as ChatAnswer;

    let textSoFar = '';
    let answer: ChatAnswer | null = null;
    const handle = (event: string, data: string) => {
      let parsed: any;
      try {
        parsed = JSON.parse(data);
      } catch {
        return;
      }
      if (event === 'delta' && typeof parsed?.text === 'string') {
        textSoFar += parsed.text;
        onDelta(textSoFar);
      } else if (event === 'done') {
        answer = parsed as ChatAnswer;
      } else if (event === 'error') {
        throw new ApiFailure(502, typeof parsed?.detail === 'string' ? parsed.detail : 'The answer was interrupted');
      }
    };
    try {
      await readEventStream(res, handle);
    } catch (err) {
      if (err instanceof ApiFailure) throw err;
      throw new ApiFailure(0, 'The connection was lost');
    }
    if (!answer) throw new ApiFailure(0, 'The connection was lost');
    return answer;
  }
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

async function request(url: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, credentials: 'omit', mode: 'cors' });
  } catch {
    throw new ApiFailure(0, 'Network error');
  }
  if (res.ok) return res;
  let detail = `HTTP ${res.status}`;
  let unavailable = false;
  try {
    const body = (await res.json()) as { detail?: unknown };
    if (typeof body.detail === 'string') detail = body.detail;
    else if (body.detail && typeof (body.detail as { message?: unknown }).message === 'string') {
      detail = (body.detail as { message: string }).message;
      unavailable = (body.detail as { upgrade_required?: unknown }).upgrade_required === true;
    }
  } catch {
    // not JSON: keep the status line
  }
  const retry = Number(res.headers.get('retry-after'));
  throw new ApiFailure(res.status, detail, Number.isFinite(retry) && retry > 0 ? retry : null, unavailable);
}
