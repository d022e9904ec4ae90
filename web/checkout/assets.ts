/**
 * The two scripts of the checkout, served as static files so the page's CSP can forbid inline
 * script: the hosted page's own helper, and the browser SDK that merchants load from /v1/skil.js.
 */

/** Hosted page: pays once per click burst, and talks to the embedding page by postMessage. */
export const CHECKOUT_PAGE_JS = `(function () {
  'use strict';
  var form = document.getElementById('skil-form');
  var card = document.getElementById('card-number');
  var brandOut = document.getElementById('card-brand');
  var cardError = document.getElementById('card-number-error');
  function digitsOf(value) { return value.replace(/[^0-9]/g, ''); }
  // The brand from the leading digits (the card networks' published ranges).
  function brandOf(d) {
    if (/^4/.test(d)) return 'Visa';
    if (/^(5[1-5]|2(2[2-9]|[3-6][0-9]|7[01]|720))/.test(d)) return 'Mastercard';
    if (/^3[47]/.test(d)) return 'American Express';
    if (/^(6011|65|64[4-9])/.test(d)) return 'Discover';
    if (/^35(2[89]|[3-8][0-9])/.test(d)) return 'JCB';
    if (/^3(0[0-5]|[689])/.test(d)) return 'Diners Club';
    return '';
  }
  // Groups of four; American Express 4-6-5.
  function grouped(d) {
    if (/^3[47]/.test(d)) return [d.slice(0, 4), d.slice(4, 10), d.slice(10, 15)].filter(Boolean).join(' ');
    return (d.match(/.{1,4}/g) || []).join(' ');
  }
  function luhn(d) {
    var sum = 0;
    for (var i = 0; i < d.length; i++) {
      var n = Number(d.charAt(d.length - 1 - i));
      if (i % 2 === 1) { n *= 2; if (n > 9) n -= 9; }
      sum += n;
    }
    return d.length >= 12 && sum % 10 === 0;
  }
  function showCardError(message) {
    if (!cardError) return;
    cardError.textContent = message;
    cardError.hidden = !message;
    if (message) {
      card.setAttribute('aria-invalid', 'true');
      card.setAttribute('aria-describedby', 'card-brand card-number-error');
    } else {
      card.removeAttribute('aria-invalid');
      card.setAttribute('aria-describedby', 'card-brand');
    }
  }
  if (card) {
    card.addEventListener('input', function () {
      var caret = card.selectionStart === null ? card.value.length : card.selectionStart;
      var before = digitsOf(card.value.slice(0, caret)).length;
      var d = digitsOf(card.value).slice(0, 19);
      var text = grouped(d);
      card.value = text;
      var pos = 0;
      for (var seen = 0; pos < text.length && seen < before; pos++) if (text.charAt(pos) !== ' ') seen++;
      if (document.activeElement === card) card.setSelectionRange(pos, pos);
      if (brandOut) brandOut.textContent = brandOf(d);
      if (card.getAttribute('aria-invalid') === 'true' && luhn(d)) showCardError('');
    });
  }
  if (form) {
    form.addEventListener('submit', function (e) {
      var submitter = e.submitter;
      var paying = submitter && /^(pay|wallet:)/.test(submitter.value || '');
      if (!paying) return;
      // A mistyped number is caught here, before anything is sent (an empty one is the server's to explain).
      if (card && submitter.value === 'pay' && digitsOf(card.value) !== '' && !luhn(digitsOf(card.value))) {
        e.preventDefault();
        showCardError(card.getAttribute('data-invalid-message') || 'Invalid card number');
        card.focus();
        return;
      }
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
