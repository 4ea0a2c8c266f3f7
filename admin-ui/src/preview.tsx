import { textOn } from '../../widget/src/shared/contrast.js';
import type { Agent } from './types.js';

const validColor = (c: string | undefined, fallback: string) =>
  c && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(c) ? c : fallback;
const httpsImage = (u: string | null | undefined) => (u && /^https:\/\/[^\s]+$/i.test(u) ? u : null);

/**
 * A live picture of the widget drawn from the settings being edited (before they are saved): the
 * launcher in its corner and the open chat window with the agent's colors, theme, size, bubble
 * style, font, logo, avatar, welcome message and branding. It mirrors the widget's stylesheet
 * (widget/src/styles.ts); the real widget is one click away on the share link.
 */
export function WidgetPreview({ agent }: { agent: Agent }) {
  const primary = validColor(agent.primary_color, '#7c3aed');
  const vars = {
    '--p-primary': primary,
    '--p-secondary': validColor(agent.secondary_color, '#ec4899'),
    '--p-accent': validColor(agent.accent_color, '#ec4899'),
    '--p-on-primary': textOn(primary),
    '--p-font': agent.font_family || 'system-ui, sans-serif',
    '--p-fs': `${Math.min(32, Math.max(10, agent.font_size || 14))}px`,
  };
  const logo = httpsImage(agent.logo_url);
  const avatar = httpsImage(agent.avatar_url);
  const classes = [
    'preview',
    `preview-${agent.widget_position}`,
    `preview-theme-${agent.widget_theme}`,
    `preview-size-${agent.widget_size}`,
    `preview-bubble-${agent.bubble_style}`,
  ];
  return (
    <figure class="preview-figure">
      <figcaption class="muted small">Preview</figcaption>
      <div class={classes.join(' ')} style={vars} data-testid="widget-preview" aria-label="Widget preview">
        <div class="preview-panel">
          <div class="preview-header">
            {logo ? (
              <img class="preview-logo" src={logo} alt="" referrerpolicy="no-referrer" />
            ) : (
              <span class="preview-logo" />
            )}
            <span class="preview-title">
              <span class="preview-name">{agent.name}</span>
              <span class="preview-status">{agent.status === 'active' ? 'Online' : 'Offline'}</span>
            </span>
          </div>
          <div class="preview-log">
            <div class="preview-msg">
              {avatar && <img class="preview-avatar" src={avatar} alt="" referrerpolicy="no-referrer" />}
              <span class="preview-bubble">{agent.welcome_message || 'Hi! How can I help you today?'}</span>
            </div>
            <div class="preview-msg preview-user">
              <span class="preview-bubble">Do you ship abroad?</span>
            </div>
          </div>
          {agent.lead_capture_enabled ? (
            <div class="preview-lead">
              <span class="small">Before we start: your name and phone</span>
              <span class="preview-input" />
              <span class="preview-button">Start chat</span>
            </div>
          ) : (
            <div class="preview-composer">
              <span class="preview-input">Type your message…</span>
              <span class="preview-send" />
            </div>
          )}
          <div class="preview-powered">{agent.powered_by_text || 'Powered by Chat Agent'}</div>
        </div>
        <span class="preview-launcher" aria-hidden="true" />
      </div>
    </figure>
  );
}
