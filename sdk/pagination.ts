/** One page of a list endpoint: `{ object: "list", data, has_more, url }`. */
export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

/**
 * What a `list` call returns: await it for the first page, or iterate it with `for await` to walk
 * every item across pages (each next page starts after the last id seen), as in stripe-node.
 */
export type ListPromise<T> = Promise<ListPage<T>> & AsyncIterable<T>;

export function listPromise<T extends { id: string }>(
  fetchPage: (startingAfter: string | undefined) => Promise<ListPage<T>>,
): ListPromise<T> {
  const first = fetchPage(undefined);
  return Object.assign(first, {
    async *[Symbol.asyncIterator](): AsyncIterator<T> {
      let page = await first;
      for (;;) {
        yield* page.data;
        const last = page.data.at(-1);
        if (!page.has_more || last === undefined) return;
        page = await fetchPage(last.id);
      }
    },
  });
}
