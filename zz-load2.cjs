require('tsx/cjs/api').register();
for (const m of process.argv.slice(2)) {
  const c0 = process.cpuUsage(); const n0 = Object.keys(require.cache).length;
  require(require('path').resolve(m));
  const c = process.cpuUsage(c0);
  console.log(m, Math.round((c.user + c.system) / 1000), 'ms', Object.keys(require.cache).length - n0, 'new mods');
}
