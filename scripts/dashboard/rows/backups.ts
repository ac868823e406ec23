import type { RowSpec } from '../grafana.js'
import { table, timeseries, unitOverride } from '../panels.js'
import type { Queries } from '../queries.js'

/** The dashboard's "Backups and uploads" row. */
export function backupsRow({ b }: Queries): RowSpec {
  return {
    title: 'Backups and uploads',
    panels: [
      table(
        'Backup freshness',
        [
          { expr: `time() - ${b('bucket_newest_object_timestamp_seconds')}` },
          { expr: `time() - ${b('bucket_oldest_object_timestamp_seconds')}` },
          { expr: `max by (bucket) (objstore:bucket_backup_max_age_seconds{bucket=~"$bucket"})` },
        ],
        ['Newest object age', 'Oldest object age', 'Alert threshold'],
        {
          w: 12,
          h: 8,
          description:
            'Age of the newest object per bucket: a backup bucket whose newest object is old has missed its backups. Thresholds are the objstore:bucket_backup_max_age_seconds recording rules of config/alerts.yml.',
          overrides: [
            unitOverride('Newest object age', 's'),
            unitOverride('Oldest object age', 's'),
            unitOverride('Alert threshold', 's'),
          ],
          sortBy: 'Newest object age',
        },
      ),
      table(
        'Incomplete multipart uploads',
        [
          { expr: b('bucket_multipart_uploads_incomplete') },
          { expr: `time() - ${b('bucket_multipart_oldest_initiated_timestamp_seconds')}` },
        ],
        ['Incomplete uploads', 'Oldest started'],
        {
          w: 12,
          h: 8,
          description:
            'Uploads neither completed nor aborted: their parts use space that bucket usage does not show. A lifecycle rule AbortIncompleteMultipartUpload cleans them up.',
          overrides: [unitOverride('Oldest started', 's')],
          sortBy: 'Incomplete uploads',
        },
      ),
      timeseries(
        'Incomplete multipart uploads over time',
        'short',
        [{ expr: `topk(10, ${b('bucket_multipart_uploads_incomplete')})`, legend: '{{bucket}}' }],
        { w: 24, h: 6 },
      ),
    ],
  }
}
