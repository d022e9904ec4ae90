/**
 * The passkey button's script (decision 0223): reads the WebAuthn options the page carries in a
 * data attribute, asks the browser's authenticator (create to add a passkey, get to sign in),
 * writes the answer as JSON into the form's hidden field and posts the form. Served from our
 * origin, so the CSP admits it with `script-src 'self'`; it makes no request of its own (the CSP
 * has no `connect-src`). Without script, or without WebAuthn, the button stays hidden.
 */
export const PASSKEY_JS = `(function () {
  'use strict';
  var box = document.getElementById('passkey');
  if (!box || !window.PublicKeyCredential || !navigator.credentials) return;
  var button = document.getElementById('passkey-start');
  var form = document.getElementById('passkey-form');
  var status = document.getElementById('passkey-status');
  var options = JSON.parse(box.getAttribute('data-options'));
  function toBuffer(text) {
    var s = text.replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) s += '=';
    var bin = atob(s);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function toText(buffer) {
    var bytes = new Uint8Array(buffer);
    var s = '';
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function withIds(list) {
    return (list || []).map(function (c) {
      return { id: toBuffer(c.id), type: c.type, transports: c.transports };
    });
  }
  function create() {
    var publicKey = Object.assign({}, options, {
      challenge: toBuffer(options.challenge),
      user: Object.assign({}, options.user, { id: toBuffer(options.user.id) }),
      excludeCredentials: withIds(options.excludeCredentials),
    });
    return navigator.credentials.create({ publicKey: publicKey }).then(function (c) {
      return {
        id: c.id,
        rawId: toText(c.rawId),
        type: c.type,
        clientExtensionResults: c.getClientExtensionResults(),
        authenticatorAttachment: c.authenticatorAttachment || undefined,
        response: {
          clientDataJSON: toText(c.response.clientDataJSON),
          attestationObject: toText(c.response.attestationObject),
          transports: c.response.getTransports ? c.response.getTransports() : [],
        },
      };
    });
  }
  function get() {
    var publicKey = Object.assign({}, options, {
      challenge: toBuffer(options.challenge),
      allowCredentials: withIds(options.allowCredentials),
    });
    return navigator.credentials.get({ publicKey: publicKey }).then(function (c) {
      return {
        id: c.id,
        rawId: toText(c.rawId),
        type: c.type,
        clientExtensionResults: c.getClientExtensionResults(),
        authenticatorAttachment: c.authenticatorAttachment || undefined,
        response: {
          clientDataJSON: toText(c.response.clientDataJSON),
          authenticatorData: toText(c.response.authenticatorData),
          signature: toText(c.response.signature),
          userHandle: c.response.userHandle ? toText(c.response.userHandle) : undefined,
        },
      };
    });
  }
  button.hidden = false;
  button.addEventListener('click', function () {
    button.disabled = true;
    status.textContent = '';
    (box.getAttribute('data-mode') === 'create' ? create() : get()).then(
      function (answer) {
        form.elements.namedItem('credential').value = JSON.stringify(answer);
        form.submit();
      },
      function () {
        button.disabled = false;
        status.textContent = box.getAttribute('data-failed');
      },
    );
  });
})();
`;
