import { useEffect, useRef, useState } from 'preact/hooks';
import { streamChat, type ChatDone } from '../api.js';
import { href } from '../router.js';
import { useSession } from '../session.js';
import type { Agent } from '../types.js';
import { Notice, errorText } from '../ui.js';
import { FIELD_MAX } from '../field-limits.js';

interface Turn {
  key: number;
  role: 'user' | 'assistant';
  text: string;
  sources?: ChatDone['sources'];
  pending?: boolean;
}

let turnSeq = 0;

/**
 * The owner's test chat: the same answers a visitor would get (same instructions, knowledge and
 * model), through the authenticated chat route, streamed as it is written. Each test is a real
 * conversation, listed under Conversations.
 */
export function TryItTab({ agent }: { agent: Agent }) {
  const { status } = useSession();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [session, setSession] = useState<{ session_id: string; conversation_id: string } | null>(null);
  const abort = useRef<AbortController | null>(null);
  const log = useRef<HTMLOListElement>(null);

  useEffect(() => () => abort.current?.abort(), []);
  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [turns]);

  const send = async (e: Event) => {
    e.preventDefault();
    const message = text.trim();
    if (!message || busy) return;
    setText('');
    setError(null);
    setBusy(true);
    const userTurn: Turn = { key: ++turnSeq, role: 'user', text: message };
    const answerKey = ++turnSeq;
    setTurns((t) => [...t, userTurn, { key: answerKey, role: 'assistant', text: '', pending: true }]);
    const controller = new AbortController();
    abort.current = controller;
    try {
      const done = await streamChat(
        { message, chatbot_id: agent.id, ...(session ? { session_id: session.session_id } : {}) },
        (delta) => setTurns((t) => t.map((x) => (x.key === answerKey ? { ...x, text: x.text + delta } : x))),
        controller.signal,
      );
      setSession({ session_id: done.session_id, conversation_id: done.conversation_id });
      setTurns((t) =>
        t.map((x) => (x.key === answerKey ? { ...x, text: done.message, sources: done.sources, pending: false } : x)),
      );
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      setError(errorText(err));
      setTurns((t) => t.filter((x) => x.key !== answerKey || x.text !== ''));
      setText((current) => current || message);
    } finally {
      setBusy(false);
    }
  };

  const restart = () => {
    abort.current?.abort();
    setTurns([]);
    setSession(null);
    setError(null);
  };

  const noKey = status && !status.providers[agent.provider];
  return (
    <section class="card stack try-it" aria-label="Test chat">
      <div class="section-head-row">
        <h2>Try it</h2>
        <div class="head-actions">
          {session && (
            <a class="btn btn-small" href={href('agents', agent.id, 'conversations', session.conversation_id)}>
              Open in Conversations
            </a>
          )}
          <button type="button" class="btn btn-small" onClick={restart} disabled={turns.length === 0}>
            New conversation
          </button>
        </div>
      </div>
      <p class="muted small">
        Chat as a visitor would.{' '}
        {noKey ? `No key is configured for ${agent.provider}: answers come from the knowledge base only.` : ''}
      </p>
      <ol class="chat-log try-log" ref={log} aria-live="polite" aria-label="Test conversation">
        <li class="chat-msg chat-assistant">
          <span class="chat-who">Agent</span>
          <div class="chat-bubble">{agent.welcome_message}</div>
        </li>
        {turns.map((t) => (
          <li key={t.key} class={`chat-msg chat-${t.role}`} data-pending={t.pending ? 'true' : undefined}>
            <span class="chat-who">{t.role === 'user' ? 'You' : 'Agent'}</span>
            <div class="chat-bubble">{t.text || (t.pending ? '…' : '')}</div>
            {t.sources && t.sources.length > 0 && (
              <p class="chat-sources small muted">
                Sources:{' '}
                {t.sources.map((s) => (s.title || s.name) + (s.page != null ? `, page ${s.page}` : '')).join('; ')}
              </p>
            )}
          </li>
        ))}
      </ol>
      {error && <Notice kind="error">{error}</Notice>}
      <form class="composer" onSubmit={send} method="post">
        <textarea
          rows={2}
          maxLength={FIELD_MAX.message}
          value={text}
          aria-label="Message"
          placeholder="Ask something a visitor would ask…"
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              (e.currentTarget.form as HTMLFormElement).requestSubmit();
            }
          }}
        />
        <button type="submit" class="btn btn-primary" disabled={busy || !text.trim()}>
          {busy ? 'Answering…' : 'Send'}
        </button>
      </form>
    </section>
  );
}
