import { loadConfig } from './config';
import { createProcessLogger } from './logger';
import { startLoadBalancer, type Backend } from './load-balancer';

/**
 * `npm run load-balancer`: the cluster's round-robin load balancer on its own (stack/load-balancer.ts), on HOST:PORT
 * in front of LB_BACKENDS (`host:port,host:port`). The compose file runs it before its two API containers.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createProcessLogger('skil-lb', config);
  const backends: Backend[] = (process.env.LB_BACKENDS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^(.+):(\d{1,5})$/.exec(s);
      if (!m) throw new Error(`LB_BACKENDS: ${s} is not host:port`);
      return { host: m[1]!, port: Number(m[2]) };
    });
  if (backends.length === 0) throw new Error('LB_BACKENDS must name at least one host:port');
  const lb = await startLoadBalancer({ host: config.HOST, port: config.PORT, backends, log });
  const stop = () => void lb.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
