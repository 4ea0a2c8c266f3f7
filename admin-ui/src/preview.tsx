import { useEffect, useRef, useState } from 'preact/hooks';
import type { AgentInfo } from '../../widget/src/api.js';
import type { Agent } from './types.js';

declare global {
  interface Window {
    /** set by the widget bundle loaded with data-mode="preview" (widget/src/main.ts) */
    __chatAgentPreview?: (shadow: ShadowRoot, info: AgentInfo) => void;
  }
}

type DrawPreview = NonNullable<Window['__chatAgentPreview']>;
let widgetBundle: Promise<DrawPreview> | null = null;

/**
 * The widget bundle visitors load (through /widget.js, so the same file and version), asked to
 * offer its preview instead of drawing a chat; loaded once, on the first preview.
 */
function loadWidget(): Promise<DrawPreview> {
  widgetBundle ??= new Promise<DrawPreview>((resolve, reject) => {
    if (window.__chatAgentPreview) return resolve(window.__chatAgentPreview);
    window.addEventListener('chat-agent-preview-ready', () => resolve(window.__chatAgentPreview!), { once: true });
    const script = document.createElement('script');
    script.src = '/widget.js';
    script.async = true;
    script.dataset.mode = 'preview';
    script.addEventListener('error', () => {
      widgetBundle = null; // tried again on the next preview
      reject(new Error('The widget could not be loaded'));
    });
    document.head.appendChild(script);
  });
  return widgetBundle;
}

/** The agent being edited: the stored agent under every section's unsaved changes. */
export type PreviewAgent = Agent & {
  lead_form_timing?: 'before_chat' | 'after_messages';
  lead_form_after_messages?: number;
  lead_consent_text?: string | null;
  privacy_policy_url?: string | null;
  language?: string;
  widget_texts?: Record<string, string | undefined>;
  starter_questions?: string[];
  greeting_message?: string | null;
  greeting_delay_s?: number;
};

/** A new agent's primary colour; its secondary and accent are this pink while they follow it. */
const DEFAULT_PRIMARY = '#7c3aed';
const DEFAULT_PINK = '#ec4899';

/**
 * The colour a secondary or accent colour takes while it follows the primary (the server's
 * followingColor, src/modules/agents/service.ts): the primary itself, the default purple's pink.
 */
export function followingColor(primary: string): string {
  return primary.toLowerCase() === DEFAULT_PRIMARY ? DEFAULT_PINK : primary;
}

/** What a visitor's widget would read about the agent (the public agent info), from the settings being edited. */
function visitorInfo(agent: PreviewAgent): AgentInfo {
  const follow = followingColor(agent.primary_color);
  const texts = Object.fromEntries(
    Object.entries(agent.widget_texts ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return {
    id: agent.id,
    name: agent.name,
    welcome_message: agent.welcome_message,
    primary_color: agent.primary_color,
    secondary_color: agent.secondary_follows_primary ? follow : agent.secondary_color,
    accent_color: agent.accent_follows_primary ? follow : agent.accent_color,
    logo_url: agent.logo_url,
    avatar_url: agent.avatar_url,
    font_family: agent.font_family,
    font_size: agent.font_size,
    bubble_style: agent.bubble_style as AgentInfo['bubble_style'],
    widget_theme: agent.widget_theme as AgentInfo['widget_theme'],
    widget_position: agent.widget_position as AgentInfo['widget_position'],
    widget_size: agent.widget_size as AgentInfo['widget_size'],
    auto_expand: false,
    lead_capture_enabled: agent.lead_capture_enabled,
    powered_by_text: agent.powered_by_text,
    status: agent.status,
    lead_form_timing: agent.lead_form_timing,
    lead_form_after_messages: agent.lead_form_after_messages,
    lead_consent_text: agent.lead_consent_text ?? null,
    privacy_policy_url: agent.privacy_policy_url ?? null,
    language: agent.language,
    widget_texts: texts,
    starter_questions: agent.starter_questions ?? [],
    greeting_message: agent.greeting_message ?? null,
    greeting_delay_s: agent.greeting_delay_s,
  };
}

/**
 * The agent as a new visitor sees it on opening the chat, drawn by the widget bundle visitors load
 * (widget/src/ui.ts ChatWidget.preview) from the settings being edited, before they are saved: its language's texts (with `auto`, this browser's), the owner's wording, welcome
 * message and starter questions, the lead form only where a visitor would meet it (before the chat
 * with `before_chat`; with `after_messages` it comes after answers, so not here), its colours,
 * theme, size, font, logo, avatar and branding, in its corner of a page. The widget is drawn at
 * its real size in a box scaled to the column (the transform also makes the box the widget's
 * containing block, so its fixed position is the box's corner) and is inert: a picture, not a
 * chat (the share link and "Try it" are for talking to it). The branding line shows the text as
 * entered; visitors see it only on a plan with custom branding.
 */
export function WidgetPreview({ agent }: { agent: PreviewAgent }) {
  const stage = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  const key = JSON.stringify(visitorInfo(agent));
  useEffect(() => {
    let host: HTMLElement | null = null;
    let gone = false;
    loadWidget().then(
      (draw) => {
        const box = stage.current;
        if (gone || !box) return;
        host = document.createElement('chat-agent-preview');
        host.setAttribute('inert', '');
        const shadow = host.attachShadow({ mode: 'open' });
        box.replaceChildren(host);
        draw(shadow, JSON.parse(key) as AgentInfo);
        setFailed(false);
      },
      () => setFailed(true),
    );
    return () => {
      gone = true;
      host?.remove();
    };
  }, [key]);
  return (
    <figure class="preview-figure">
      <figcaption class="muted small">Preview: as visitors see it</figcaption>
      <div class="preview-frame">
        {/* an inert picture of the widget: to assistive technology an image, named for what it shows */}
        <div
          class="preview-stage"
          ref={stage}
          data-testid="widget-preview"
          role="img"
          aria-label={`The chat widget of ${agent.name} as a visitor sees it on opening the chat`}
        />
        {failed && <p class="preview-failed muted small">The widget could not be loaded for the preview.</p>}
      </div>
    </figure>
  );
}
