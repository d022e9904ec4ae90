/** Stops what global-setup started, newest first. */
export default async function globalTeardown(): Promise<void> {
  const running = globalThis.__skilTestStack;
  for (const stop of (running?.stops ?? []).reverse()) await stop();
}
