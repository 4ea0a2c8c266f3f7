/**
 * /widget.js: the tiny, short-cached loader named in the embed snippet. It finds its own tag and
 * adds the content-hashed bundle (cached for a year) from the same origin, passing the tag's
 * data-chatbot-id (and the admin UI preview's data-mode, and a verified visitor's data-user-id,
 * data-user-hash, data-user-name, data-user-email) on. The bundle file name is filled in at build time.
 */
declare const __WIDGET_BUNDLE__: string;

(() => {
  const me = document.currentScript as HTMLScriptElement | null;
  if (!me?.src) return;
  const bundle = document.createElement('script');
  bundle.src = new URL(__WIDGET_BUNDLE__, me.src).href;
  bundle.async = true;
  bundle.dataset.chatbotId = me.dataset.chatbotId ?? '';
  if (me.dataset.mode === 'preview') bundle.dataset.mode = 'preview'; // the admin UI's settings preview
  // the site's signed-in user (verified visitors): passed on as given, the bundle checks them
  for (const key of ['userId', 'userHash', 'userName', 'userEmail'] as const) {
    const value = me.dataset[key];
    if (value !== undefined) bundle.dataset[key] = value;
  }
  (document.head || document.documentElement).appendChild(bundle);
})();
