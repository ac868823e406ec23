/** A bucket of a named tenant is addressed `tenant:bucket` in S3 requests to RGW; so is it labelled. */
export function bucketName(stats: { readonly bucket: string; readonly tenant: string }): string {
  return stats.tenant ? `${stats.tenant}:${stats.bucket}` : stats.bucket
}
