import {
  ListObjectsV2Command,
  type ListObjectsV2CommandInput,
  ListObjectVersionsCommand,
  type ListObjectVersionsCommandInput,
  type S3Client,
} from '@aws-sdk/client-s3'
import { deserializerMiddlewareOption, getSchemaSerdePlugin } from '@smithy/core/schema'
import { type ListingKind, type ListingPage, parseListing } from './listing-xml.js'

/**
 * ListObjectsV2 and ListObjectVersions as the scan sends them: through the one client (its
 * signing, endpoint, TLS, the answer checks and the request counter of client.ts), with the
 * command's deserializer replaced for these two commands only. A 2xx answer is read by
 * listing-xml.ts into a ListingPage; any other answer goes to the SDK's own deserializer, so
 * errors, their names and status (what classifyS3Error sorts into throttled, denied...) are
 * exactly the SDK's. S3's "200 with an error document" still becomes an error first: the SDK's
 * throw200Exceptions middleware sits inside this one, as it sits inside its own deserializer.
 */

export function listObjectsV2(
  client: S3Client,
  input: ListObjectsV2CommandInput,
  abortSignal: AbortSignal,
): Promise<ListingPage> {
  return sendListing(client, new ListObjectsV2Command(input), 'ListObjectsV2', abortSignal)
}

export function listObjectVersions(
  client: S3Client,
  input: ListObjectVersionsCommandInput,
  abortSignal: AbortSignal,
): Promise<ListingPage> {
  return sendListing(client, new ListObjectVersionsCommand(input), 'ListObjectVersions', abortSignal)
}

interface RawResponse {
  readonly statusCode: number
  readonly headers: Record<string, string | undefined>
  body: unknown
}
type Handler = (args: object) => Promise<{ response: unknown; output?: unknown }>
type Middleware = (next: Handler, context: object) => Handler

function sendListing(
  client: S3Client,
  command: ListObjectsV2Command | ListObjectVersionsCommand,
  kind: ListingKind,
  abortSignal: AbortSignal,
): Promise<ListingPage> {
  const sdk = sdkDeserializer(client)
  const readListing: Middleware = (next, context) => async (args) => {
    const result = await next(args)
    const response = result.response as RawResponse
    // As the SDK decides: 3xx and up are errors, for its own deserializer.
    if (response.statusCode >= 300) return sdk(() => Promise.resolve(result), context)(args)
    const bytes = await bodyBytes(response.body)
    try {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
      return { response, output: Object.assign(parseListing(kind, text), { $metadata: metadata(response) }) }
    } catch (error) {
      // As the SDK marks a body it could not read: the status goes into the error's message.
      if (error instanceof Error) Object.assign(error, { $metadata: metadata(response) })
      throw error
    }
  }
  const stack: { add(middleware: never, options: typeof deserializerMiddlewareOption): void } =
    command.middlewareStack
  stack.add(readListing as never, deserializerMiddlewareOption)
  return client.send(command, { abortSignal }) as unknown as Promise<ListingPage>
}

/**
 * The answer's bytes. S3's throw200Exceptions middleware has read the body already (bounded by
 * client.ts's check) and handed it on as a stream of one buffer: that buffer is taken as it is,
 * not copied once more as the SDK's stream collector would (a page is 0.2-1.5 MB, and buffers
 * outside the heap wait for a collection to be freed: a copy less per page is less resident
 * memory while a bucket is listed).
 */
async function bodyBytes(body: unknown): Promise<Uint8Array> {
  if (body instanceof Uint8Array) return body
  if (body === undefined || body === null) return new Uint8Array(0)
  const chunks: Uint8Array[] = []
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks)
}

/** What the SDK's deserializer puts in every output; its retry middleware writes into it. */
function metadata(response: RawResponse) {
  return {
    httpStatusCode: response.statusCode,
    requestId: response.headers['x-amz-request-id'],
    extendedRequestId: response.headers['x-amz-id-2'],
    cfId: response.headers['x-amz-cf-id'],
  }
}

const sdkDeserializers = new WeakMap<S3Client, Middleware>()

/**
 * The SDK's deserializer of `client`, as the client installs it (getSchemaSerdePlugin, the
 * schema-based protocol of its config); taken from the plugin, which offers no other handle.
 */
function sdkDeserializer(client: S3Client): Middleware {
  let found = sdkDeserializers.get(client)
  if (found) return found
  const stack = {
    add(middleware: Middleware, options: { name?: string }) {
      if (options.name === deserializerMiddlewareOption.name) found = middleware
    },
  }
  getSchemaSerdePlugin(client.config).applyToStack(stack as never)
  if (!found) throw new Error('the SDK no longer installs its deserializer as the plugin did')
  sdkDeserializers.set(client, found)
  return found
}
