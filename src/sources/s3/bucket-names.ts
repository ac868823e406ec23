import { ListBucketsCommand, type S3Client } from '@aws-sdk/client-s3'
import type { SendRequest } from './client.js'
import { pages } from './pages.js'

/** Every bucket the keys can see (ListBuckets, paged by its continuation token). */
export async function listBucketNames(
  client: S3Client,
  signal: AbortSignal,
  send: SendRequest,
): Promise<string[]> {
  const names: string[] = []
  const listing = pages({
    action: 'ListBuckets',
    request: (token: string | undefined) =>
      send('ListBuckets', signal, (abortSignal) =>
        client.send(new ListBucketsCommand({ MaxBuckets: 10_000, ContinuationToken: token }), {
          abortSignal,
        }),
      ),
    // An empty account still answers <Buckets/> (and its Owner); neither means no listing at all.
    truncated: (page) =>
      page.Buckets === undefined && page.Owner === undefined ? undefined : Boolean(page.ContinuationToken),
    next: (page) => page.ContinuationToken,
  })
  for await (const page of listing)
    for (const bucket of page.Buckets ?? []) if (bucket.Name) names.push(bucket.Name)
  return names
}
