/**
 * The two scripts of the checkout, served as static files so the page's CSP can forbid inline
 * script: the hosted page's own helper, and the browser SDK that merchants load from /v1/skil.js.
 */

/** Hosted page: pays once per click burst, and talks to the embedding page by postMessage. */
export const CHECKOUT_PAGE_JS = `(function () {
  'use strict';
  var form = document.getElementById('skil-form');
  if (form) {
    form.addEventListener('submit', function (e) {
      var submitter = e.submitter;
      var paying = submitter && /^(pay|wallet:)/.test(submitter.value || '');
      if (!paying) return;
      if (form.getAttribute('data-busy') === '1') { e.preventDefault(); return; }
      form.setAttribute('data-busy', '1');
      submitter.setAttribute('aria-busy', 'true');
    });
  }
  // Pickup points nearest the buyer: the browser's position, sent with a search.
  var near = document.getElementById('pickup-near');
  if (near && form && navigator.geolocation) near.addEventListener('click', function () {
    navigator.geolocation.getCurrentPosition(function (pos) {
      document.getElementById('pickup-lat').value = String(pos.coords.latitude);
      document.getElementById('pickup-lng').value = String(pos.coords.longitude);
      var action = document.createElement('input');
      action.type = 'hidden'; action.name = 'action'; action.value = 'pickup_search';
      form.appendChild(action);
      form.submit();
    });
  });
  var root = document.getElementById('skil-checkout');
  var parentOrigin = root && root.getAttribute('data-embed-origin');
  if (!parentOrigin || window.parent === window) return;
  function post(message) { window.parent.postMessage(message, parentOrigin); }
  var done = root.getAttribute('data-complete-session');
  if (done) post({ type: 'skil:checkout.complete', session_id: done });
  var cancel = document.getElementById('skil-cancel');
  if (cancel) cancel.addEventListener('click', function () {
    post({ type: 'skil:checkout.cancel', session_id: root.getAttribute('data-session') });
  });
  // Messages from the embedding page are accepted only from its origin and its window.
  window.addEventListener('message', function (e) {
    if (e.origin !== parentOrigin || e.source !== window.parent) return;
    if (e.data && e.data.type === 'skil:ping') post({ type: 'skil:pong' });
  });
})();
`;

/**
 * Browser SDK: \`Skil.openCheckout(sessionUrl, { onComplete, onCancel })\` shows the session in an
 * overlay iframe on the merchant's page. Messages are accepted only from Skil's origin and from
 * that iframe's window; the page in the frame sends only to the merchant's origin.
 */
export function sdkJs(): string {
  return `(function () {
  'use strict';
  var script = document.currentScript;
  var skilOrigin = new URL(script.src).origin;
  function openCheckout(sessionUrl, options) {
    options = options || {};
    var url = new URL(sessionUrl, skilOrigin);
    if (url.origin !== skilOrigin) throw new Error('Skil: the session url must be on ' + skilOrigin);
    url.searchParams.set('embed', window.location.origin);
    var overlay = document.createElement('div');
    overlay.setAttribute('data-skil-overlay', '');
    overlay.setAttribute('role', 'dialog');
    overlay.setAttribute('aria-modal', 'true');
    overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483646;background:rgba(0,0,0,.55);display:flex;align-items:center;justify-content:center';
    var frame = document.createElement('iframe');
    frame.src = url.toString();
    frame.title = 'Checkout';
    frame.setAttribute('allow', 'payment');
    frame.style.cssText = 'border:0;background:#fff;width:min(480px,100vw);height:min(760px,100vh);border-radius:8px';
    overlay.appendChild(frame);
    document.body.appendChild(overlay);
    function close() {
      window.removeEventListener('message', onMessage);
      if (overlay.parentNode) overlay.parentNode.removeChild(overlay);
    }
    function onMessage(e) {
      if (e.origin !== skilOrigin || e.source !== frame.contentWindow) return;
      var data = e.data || {};
      if (data.type === 'skil:checkout.complete') {
        close();
        if (options.onComplete) options.onComplete({ session_id: data.session_id });
      } else if (data.type === 'skil:checkout.cancel') {
        close();
        if (options.onCancel) options.onCancel({ session_id: data.session_id });
      }
    }
    window.addEventListener('message', onMessage);
    return { close: close, frame: frame };
  }
  window.Skil = { openCheckout: openCheckout };
})();
`;
}
