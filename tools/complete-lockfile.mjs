#!/usr/bin/env node
// The npm registry reachable from this workplace serves only some platforms' builds of
// platform-specific packages, so `npm install` leaves other platforms' optional packages out of package-lock.json,
// and `npm ci` then refuses the lock as "Missing: <pkg>@ from lock file". This adds a lock entry
// for each such optional package, marked optional with the os/cpu its name states, so `npm ci`
// accepts the lock and skips them on this platform, as it would skip them anyway.
// Run after every `npm install`: node tools/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = [
  'darwin',
  'win32',
  'linux',
  'freebsd',
  'android',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
  'openharmony',
];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

/** Reads the platform a package name states, e.g. @swc/core-win32-arm64-msvc → win32 / arm64. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os =
    parts.find((p) => OS.includes(p)) ??
    (parts.includes('windows') ? 'win32' : parts.includes('macos') ? 'darwin' : undefined);
  let cpu = parts.find((p) => CPU.includes(p));
  if (!cpu && parts.includes('arm')) cpu = 'arm';
  if (parts.includes('universal')) cpu = undefined;
  return { os, cpu };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? 'node_modules/' : `${path}/node_modules/`;
    if (packages[`${base}${dep}`] || packages[`node_modules/${dep}`]) continue;
    const { os, cpu } = platformOf(dep);
    if (!os || (os === process.platform && (!cpu || cpu === process.arch))) {
      console.error(
        `left alone: ${dep}@${version} (needed by ${path || 'the project'}): not another platform's build`,
      );
      continue;
    }
    packages[`node_modules/${dep}`] = {
      version: version.replace(/^[\^~]/, ''),
      optional: true,
      ...(os && { os: [os] }),
      ...(cpu && { cpu: [cpu] }),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: added ${added} other-platform optional entries`);
