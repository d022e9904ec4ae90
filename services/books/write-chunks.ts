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
      if (!res.write(chunk)) await drainedOrClosed(res);
    }
    if (!closed()) res.end();
  } catch (err) {
    onError(err);
    res.destroy();
  }
}

/**
 * Resolves at the response's next `drain` or its `close`, whichever is first, and removes both
 * listeners: `once` on each would leave the other behind, one `close` listener (and its promise)
 * per wait held until the response ends, thousands in a large export.
 */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((done) => {
    const settle = () => {
      res.off('drain', settle).off('close', settle);
      done();
    };
    res.on('drain', settle).on('close', settle);
  });
}
