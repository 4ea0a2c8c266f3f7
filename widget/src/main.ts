import type { AgentInfo } from './api.js';
import { identityFrom } from './identity.js';
import { ChatWidget, type Mode } from './ui.js';

/**
 * The widget bundle. Started by the /widget.js loader (which passes on the embed tag's
 * data-chatbot-id) or by the /chat/{id} page (data-mode="page"). It reads its own <script> tag:
 * the API origin is the origin of its src, so it works on any site. With data-mode="preview" (the
 * admin UI's settings preview) it draws nothing itself: it offers ChatWidget.preview as
 * `window.__chatAgentPreview` and says so with a `chat-agent-preview-ready` event.
 */
declare global {
  interface Window {
    __chatAgentWidgets?: Record<string, true>;
    __chatAgentPreview?: (shadow: ShadowRoot, info: AgentInfo) => void;
  }
}

function boot(): void {
  const script = document.currentScript as HTMLScriptElement | null;
  if (!script?.src) return;
  if (script.dataset.mode === 'preview') {
    window.__chatAgentPreview = (shadow, info) => void ChatWidget.preview(shadow, info);
    window.dispatchEvent(new Event('chat-agent-preview-ready'));
    return;
  }
  const agentId = script.dataset.chatbotId;
  if (!agentId) {
    console.warn('[chat-agent] the widget script needs a data-chatbot-id attribute');
    return;
  }
  const mode: Mode = script.dataset.mode === 'page' ? 'page' : 'embed';
  const origin = new URL(script.src).origin;
  // a snippet pasted twice must not draw two launchers
  const loaded = (window.__chatAgentWidgets ??= {});
  if (loaded[agentId]) return;
  loaded[agentId] = true;

  const mount = () => {
    const host = document.createElement('chat-agent-widget');
    host.setAttribute('data-chatbot-id', agentId);
    const shadow = host.attachShadow({ mode: 'open' });
    document.body.appendChild(host);
    const widget = new ChatWidget(shadow, origin, agentId, mode, false, identityFrom(script.dataset));
    void widget.start().then((shown) => {
      if (!shown && mode === 'embed') {
        host.remove(); // unknown or private agent: leave the page as it was
        delete loaded[agentId];
        console.warn(`[chat-agent] chatbot ${agentId} is not available`);
      }
    });
  };
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });
}

boot();
