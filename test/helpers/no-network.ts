import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the preload writes to stderr for each attempt; a test asserts it never appears. */
export const NETWORK_ATTEMPT = 'NETWORK-ATTEMPT';

// Preloaded (node --require) into a child process that must work offline: every attempt to open a
// network connection or resolve a name is written to stderr with the marker and refused, so a test
// can assert there was none. Local IPC (Unix sockets, pipes) is allowed.
const PRELOAD = `
const net = require('node:net');
const dns = require('node:dns');

const MARKER = '${NETWORK_ATTEMPT}';
function refuse(what) {
  process.stderr.write(\`\${MARKER} \${what}\\n\`);
  const err = new Error(\`network disabled in this process: \${what}\`);
  err.code = 'ENETUNREACH';
  return err;
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const opts = typeof args[0] === 'object' && args[0] !== null ? args[0] : { port: args[0], host: args[1] };
  if (opts.path !== undefined) return connect.apply(this, args);
  const err = refuse(\`connect \${opts.host ?? 'localhost'}:\${opts.port}\`);
  process.nextTick(() => this.destroy(err));
  return this;
};
for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6']) {
  const original = dns[name];
  dns[name] = function (host, ...rest) {
    const cb = rest.find((r) => typeof r === 'function');
    const err = refuse(\`dns \${name} \${host}\`);
    if (cb) process.nextTick(() => cb(err));
    else return original.call(this, host, ...rest);
  };
}
for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6']) {
  dns.promises[name] = async (host) => {
    throw refuse(\`dns \${name} \${host}\`);
  };
}
if (typeof globalThis.fetch === 'function') {
  globalThis.fetch = async (input) => {
    throw refuse(\`fetch \${typeof input === 'string' ? input : String(input?.url ?? input)}\`);
  };
}
`;

/** Writes the preload into `dir`; pass the returned path to `node --require`. */
export function writeNoNetworkPreload(dir: string): string {
  const file = path.join(dir, 'no-network.cjs');
  writeFileSync(file, PRELOAD);
  return file;
}
