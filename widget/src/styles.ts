/**
 * The widget's whole stylesheet, scoped by its shadow root. `:host` resets everything with
 * !important: for important declarations the shadow tree's own rules beat the page's, so even a
 * page rule like `* { display: none !important }` cannot reach in. Agent settings arrive as
 * custom properties set on the root element through the CSSOM (never as CSS text).
 */
export const CSS = `
:host{all:initial!important;display:block!important;position:static!important;visibility:visible!important;opacity:1!important;contain:none!important;transform:none!important;filter:none!important}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
.root{--primary:#7c3aed;--secondary:#cd3f85;--accent:#ec4899;--on-primary:#fff;--on-header:#fff;--font:system-ui,sans-serif;--fs:14px;
 --primary-text-light:#7c3aed;--primary-text-dark:#a577f3;--link-light:#c23b7d;--link-dark:#ee57a1;
 --primary-text:var(--primary-text-light);--link:var(--link-light);--ring-dark:#111827;--ring-light:#fff;
 --bg:#fff;--surface:#f3f4f6;--text:#111827;--muted:#4b5563;--border:#e5e7eb;--field-border:#6b7280;--shadow:0 12px 40px rgba(0,0,0,.18);
 --radius:16px;--bubble-radius:16px;--launcher:56px;--w:370px;--h:560px;--gap:20px;
 font-family:var(--font);font-size:var(--fs);line-height:1.45;color:var(--text);text-align:left;direction:ltr;
 -webkit-font-smoothing:antialiased;letter-spacing:normal;word-spacing:normal;text-transform:none;font-weight:400;font-style:normal}
.theme-dark{--bg:#111827;--surface:#1f2937;--text:#f9fafb;--muted:#cbd5e1;--border:#374151;--shadow:0 12px 40px rgba(0,0,0,.5);
 --field-border:#9ca3af;--primary-text:var(--primary-text-dark);--link:var(--link-dark)}
@media (prefers-color-scheme:dark){.theme-auto{--bg:#111827;--surface:#1f2937;--text:#f9fafb;--muted:#cbd5e1;--border:#374151;--shadow:0 12px 40px rgba(0,0,0,.5);
 --field-border:#9ca3af;--primary-text:var(--primary-text-dark);--link:var(--link-dark)}}
.size-small{--launcher:48px;--w:320px;--h:460px}
.size-large{--launcher:64px;--w:420px;--h:640px}
.bubble-square{--radius:6px;--bubble-radius:4px}
button,input,textarea{font:inherit;color:inherit;margin:0}
button{cursor:pointer}
/* a two-tone ring, light inside dark: one of the two reads at 3:1 or more on any colour around it */
:focus-visible{outline:2px solid var(--ring-dark);outline-offset:2px;box-shadow:0 0 0 2px var(--ring-light)}
.launcher{position:fixed;z-index:2147483000;width:var(--launcher);height:var(--launcher);border:0;padding:0;border-radius:50%;
 background:var(--primary);color:var(--on-primary);box-shadow:0 6px 20px rgba(0,0,0,.25);display:flex;align-items:center;justify-content:center;
 transition:transform .15s ease}
.bubble-square .launcher{border-radius:12px}
.launcher:hover{transform:scale(1.06)}
.launcher:focus-visible{box-shadow:0 0 0 2px var(--ring-light),0 6px 20px rgba(0,0,0,.25)}
.launcher svg{width:46%;height:46%;fill:currentColor}
.launcher .dot{position:absolute;top:4px;right:4px;width:12px;height:12px;border-radius:50%;background:#9ca3af;border:2px solid #fff}
.pos-bottom-right .launcher{right:var(--gap);bottom:var(--gap)}
.pos-bottom-left .launcher{left:var(--gap);bottom:var(--gap)}
.pos-top-right .launcher{right:var(--gap);top:var(--gap)}
.pos-top-left .launcher{left:var(--gap);top:var(--gap)}
.panel{position:fixed;z-index:2147483001;width:var(--w);height:var(--h);max-width:calc(100vw - 2*var(--gap));
 max-height:calc(100vh - var(--launcher) - 3*var(--gap));background:var(--bg);color:var(--text);border:1px solid var(--border);
 border-radius:var(--radius);box-shadow:var(--shadow);display:flex;flex-direction:column;overflow:hidden;animation:pop .18s ease-out}
@keyframes pop{from{opacity:0;transform:translateY(8px) scale(.98)}to{opacity:1;transform:none}}
.pos-bottom-right .panel{right:var(--gap);bottom:calc(var(--launcher) + 2*var(--gap) - 8px)}
.pos-bottom-left .panel{left:var(--gap);bottom:calc(var(--launcher) + 2*var(--gap) - 8px)}
.pos-top-right .panel{right:var(--gap);top:calc(var(--launcher) + 2*var(--gap) - 8px)}
.pos-top-left .panel{left:var(--gap);top:calc(var(--launcher) + 2*var(--gap) - 8px)}
.header{display:flex;align-items:center;gap:10px;padding:12px 12px 12px 16px;background:linear-gradient(135deg,var(--primary),var(--secondary));color:var(--on-header);flex:none}
.logo{width:32px;height:32px;border-radius:50%;object-fit:cover;background:rgba(255,255,255,.2);flex:none}
.bubble-square .logo,.bubble-square .avatar{border-radius:4px}
.title{flex:1;min-width:0;display:flex;flex-direction:column}
.name{font-weight:600;font-size:1.07em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;margin:0}
.status{font-size:.8em}
.icon{background:transparent;border:0;color:inherit;width:34px;height:34px;border-radius:8px;display:flex;align-items:center;justify-content:center;padding:0;flex:none}
.icon:hover{background:rgba(255,255,255,.18)}
.icon svg{width:18px;height:18px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.log{flex:1;overflow-y:auto;overscroll-behavior:contain;padding:16px;display:flex;flex-direction:column;gap:10px;background:var(--bg);overflow-anchor:none}
/* inside its edges: the window around it would clip a ring drawn outside */
.log:focus-visible{outline-offset:-4px;box-shadow:inset 0 0 0 2px var(--ring-light)}
.msg{display:flex;gap:8px;align-items:flex-end;max-width:88%}
.msg.user{align-self:flex-end;flex-direction:row-reverse}
.avatar{width:28px;height:28px;border-radius:50%;object-fit:cover;flex:none}
.bubble{padding:9px 13px;border-radius:var(--bubble-radius);background:var(--surface);color:var(--text);overflow-wrap:anywhere;min-width:0}
.msg.user .bubble{background:var(--primary);color:var(--on-primary);white-space:pre-wrap}
.msg.assistant .bubble{border-bottom-left-radius:4px}
.msg.user .bubble{border-bottom-right-radius:4px}
.bubble p{margin:0 0 .5em}.bubble>*:last-child{margin-bottom:0}
.bubble h3,.bubble h4,.bubble h5,.bubble h6{margin:.4em 0;font-size:1em;font-weight:700}
.bubble ul,.bubble ol{margin:0 0 .5em;padding-left:1.3em}
.bubble pre{margin:0 0 .5em;padding:8px;background:rgba(127,127,127,.15);border-radius:6px;overflow-x:auto;white-space:pre}
.bubble code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
.bubble blockquote{margin:0 0 .5em;padding-left:10px;border-left:3px solid var(--border)}
.bubble a{color:var(--link);text-decoration:underline;font-weight:500}
.bubble hr{border:0;border-top:1px solid var(--border)}
.table-wrap{overflow-x:auto;margin:0 0 .5em}
.bubble table{border-collapse:collapse}.bubble th,.bubble td{border:1px solid var(--border);padding:3px 6px}
.sources{margin-top:6px;padding-top:6px;border-top:1px solid var(--border);font-size:.85em;color:var(--muted)}
.sources ul{margin:2px 0 0;padding-left:1.1em}
.sources a{color:var(--link)}
.typing{display:flex;gap:4px;padding:12px 14px}
.typing span{width:7px;height:7px;border-radius:50%;background:var(--muted);animation:blink 1.2s infinite ease-in-out}
.typing span:nth-child(2){animation-delay:.2s}.typing span:nth-child(3){animation-delay:.4s}
@keyframes blink{0%,80%,100%{opacity:.25}40%{opacity:1}}
.notice{margin:0 12px 8px;padding:8px 10px;border-radius:8px;background:#fef2f2;color:#991b1b;border:1px solid #fecaca;display:flex;gap:8px;align-items:center;font-size:.9em;flex:none}
.notice span{flex:1}
.notice button{background:#991b1b;color:#fff;border:0;border-radius:6px;padding:5px 10px;font-weight:600}
.composer{display:flex;gap:8px;padding:10px 12px;border-top:1px solid var(--border);background:var(--bg);flex:none;align-items:flex-end}
.composer textarea{flex:1;resize:none;border:1px solid var(--field-border);border-radius:calc(var(--bubble-radius) / 2 + 6px);padding:9px 12px;background:var(--bg);color:var(--text);
 max-height:120px;min-height:40px;line-height:1.4}
.send{width:40px;height:40px;border-radius:50%;border:0;background:var(--primary);color:var(--on-primary);display:flex;align-items:center;justify-content:center;flex:none;padding:0}
.bubble-square .send{border-radius:8px}
.send svg{width:18px;height:18px;fill:currentColor}
.send:disabled,.composer textarea:disabled{opacity:.5;cursor:not-allowed}
.lead{padding:14px 16px;border-top:1px solid var(--border);display:flex;flex-direction:column;gap:8px;flex:none;background:var(--bg)}
.lead p{margin:0;color:var(--muted);font-size:.92em}
.lead label{display:flex;flex-direction:column;gap:3px;font-size:.88em;font-weight:600}
.lead input{border:1px solid var(--field-border);border-radius:8px;padding:8px 10px;background:var(--bg);color:var(--text);font-weight:400;font-size:1em}
.lead button{border:0;border-radius:8px;padding:10px;background:var(--primary);color:var(--on-primary);font-weight:600}
.lead .err{color:#b91c1c;font-size:.85em;margin:0}
.lead .consent{font-size:.8em}
.lead .consent a{color:var(--link);text-decoration:underline}
.lead-actions{display:flex;gap:8px}
.lead-actions button{flex:1}
.lead .skip{background:transparent;color:var(--text);border:1px solid var(--border)}
.lead-after{border:1px solid var(--border);border-radius:var(--bubble-radius);background:var(--surface);padding:12px 14px}
.lead-after input{background:var(--bg)}
.lead-thanks{margin:0;align-self:center;text-align:center;color:var(--muted);font-size:.9em}
.theme-dark .lead .err{color:#fca5a5}
.feedback{display:flex;gap:4px;margin:-4px 0 0 36px}
.thumb{width:28px;height:28px;border:1px solid transparent;border-radius:8px;background:transparent;color:var(--muted);display:flex;align-items:center;justify-content:center;padding:0}
.thumb svg{width:15px;height:15px;fill:currentColor}
.thumb:hover{background:var(--surface)}
.thumb[aria-pressed="true"]{color:var(--primary-text);border-color:var(--border);background:var(--surface)}
.thumb:disabled{opacity:.5}
.starters{display:flex;flex-wrap:wrap;gap:6px;margin-top:4px}
.starters button{border:1px solid var(--primary-text);color:var(--primary-text);background:var(--bg);border-radius:999px;padding:6px 12px;font-size:.9em;text-align:left}
.starters button:hover{background:var(--surface)}
.action-buttons{display:flex;flex-wrap:wrap;gap:6px;padding:8px 12px;flex:none;max-height:100px;overflow-y:auto;background:var(--bg);border-top:1px solid var(--border)}
.action-buttons button{border:1px solid var(--primary-text);color:var(--primary-text);background:var(--bg);border-radius:999px;padding:5px 12px;font-size:.88em;text-align:left;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.action-buttons button:hover{background:var(--surface)}
.action-card,.action-form{border:1px solid var(--border);border-radius:var(--bubble-radius);background:var(--surface);padding:12px 14px;display:flex;flex-direction:column;gap:8px;flex:none}
.action-title{margin:0;font-weight:600}
.action-inputs{margin:0;display:grid;grid-template-columns:auto 1fr;gap:2px 10px;font-size:.9em}
.action-inputs dt{color:var(--muted)}.action-inputs dd{margin:0;overflow-wrap:anywhere}
.action-sends{margin:0;font-size:.85em;color:var(--muted);font-family:ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.action-slots{border:0;margin:0;padding:0;display:flex;flex-direction:column;gap:4px;max-height:180px;overflow-y:auto}
.action-slots legend{padding:0;margin-bottom:4px;font-size:.88em;font-weight:600}
.action-slots .slot{display:flex;gap:8px;align-items:center;font-size:.92em}
.action-card label:not(.slot),.action-form label{display:flex;flex-direction:column;gap:3px;font-size:.88em;font-weight:600}
.action-card input:not([type=radio]),.action-form input{border:1px solid var(--field-border);border-radius:8px;padding:8px 10px;background:var(--bg);color:var(--text);font-weight:400;font-size:1em}
.card-buttons{display:flex;gap:8px}
.card-buttons button{flex:1;border:0;border-radius:8px;padding:9px;background:var(--primary);color:var(--on-primary);font-weight:600}
.card-buttons .action-cancel,.card-buttons .skip{background:transparent;color:var(--text);border:1px solid var(--border)}
.card-buttons button:disabled{opacity:.5;cursor:not-allowed}
.action-status{margin:0;font-size:.9em}.ended .action-status{font-weight:600}.action-status:empty,.action-form .err:empty{display:none}
.action-form .err{color:#b91c1c;font-size:.85em;margin:0}
.theme-dark .action-form .err{color:#fca5a5}
.ask-person{align-self:center;margin:0 12px 6px;background:transparent;border:1px solid var(--border);border-radius:999px;padding:4px 12px;font-size:.85em;color:var(--text);flex:none}
.ask-person:hover{background:var(--surface)}
.note{margin:0;align-self:center;text-align:center;color:var(--muted);font-size:.9em}
.msg.person .bubble{border-left:3px solid var(--accent)}
.person-label{display:block;font-size:.75em;font-weight:600;color:var(--muted);margin-bottom:2px}
.launcher.unread::after{content:'';position:absolute;top:2px;right:2px;width:14px;height:14px;border-radius:50%;background:#ef4444;border:2px solid #fff}
.greeting{position:fixed;z-index:2147483000;display:flex;align-items:flex-start;gap:2px;max-width:min(280px,calc(100vw - 2*var(--gap)));background:var(--bg);color:var(--text);
 border:1px solid var(--border);border-radius:var(--radius);box-shadow:var(--shadow);padding:4px}
@media (prefers-reduced-motion:no-preference){.greeting{animation:pop .25s ease-out}}
.greeting-text{border:0;background:transparent;text-align:left;padding:8px 4px 8px 10px;flex:1}
.greeting-close{border:0;background:transparent;width:26px;height:26px;border-radius:6px;display:flex;align-items:center;justify-content:center;padding:0;flex:none;color:var(--muted)}
.greeting-close svg{width:14px;height:14px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round}
.pos-bottom-right .greeting{right:var(--gap);bottom:calc(var(--launcher) + var(--gap) + 10px)}
.pos-bottom-left .greeting{left:var(--gap);bottom:calc(var(--launcher) + var(--gap) + 10px)}
.pos-top-right .greeting{right:var(--gap);top:calc(var(--launcher) + var(--gap) + 10px)}
.pos-top-left .greeting{left:var(--gap);top:calc(var(--launcher) + var(--gap) + 10px)}
.powered{font-size:.75em;color:var(--muted);text-align:center;padding:0 8px 8px;background:var(--bg);flex:none}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:480px){
 .mode-embed .panel{inset:0!important;width:100%;height:100%;height:100dvh;max-width:none;max-height:none;border-radius:0;border:0}
 .mode-embed.open .launcher{display:none}
}
.mode-page .panel{position:fixed;inset:0;width:100%;height:100%;height:100dvh;max-width:none;max-height:none;border:0;border-radius:0;box-shadow:none;animation:none}
.mode-page .log,.mode-page .composer,.mode-page .action-buttons,.mode-page .lead-before,.mode-page .header{padding-left:max(16px,calc(50% - 380px));padding-right:max(16px,calc(50% - 380px))}
.mode-page .notice{margin-left:max(12px,calc(50% - 380px));margin-right:max(12px,calc(50% - 380px))}
.preview .panel,.preview .launcher{animation:none;transition:none}
@media (prefers-reduced-motion:reduce){*,*::before,*::after{animation:none!important;transition:none!important}}
`;
