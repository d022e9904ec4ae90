import type { ServerResponse } from 'node:http';

/**
 * Writes generated chunks to a response with back-pressure (decision 0232): the next page is read
 * only once the client has taken this one, and a client that went away stops the reading. Headers
 * are sent by the caller; a failure after them can only cut the download off.
 */
export async function writeChunks(
  res: ServerResponse,
  chunks: AsyncIterable<string>,
  onError: (err: unknown) => void,
): Promise<void> {
  const closed = () => res.destroyed || res.writableEnded;
  try {
    for await (const chunk of chunks) {
      if (closed()) return;
      if (!res.write(chunk)) await new Promise((done) => res.once('drain', done).once('close', done));
    }
    if (!closed()) res.end();
  } catch (err) {
    onError(err);
    res.destroy();
  }
}
