import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import {
  advanceUsageLog,
  type UsageLogHours,
  usageLogReadStart,
} from '../../src/figures/usage-log/counters.js'
import type { UsageLogFigures } from '../../src/figures/usage-log/index.js'
import { userScanProblem } from '../../src/record/user-usage.js'
import { RgwAdminResponseError } from '../../src/sources/rgw/stats.js'
import { parseUsageLog } from '../../src/sources/rgw/usage-log.js'
import { parseUserInfo, parseUserPage, readUsers, type UserReader } from '../../src/sources/rgw/users.js'

// Real answers of Ceph 16.2's admin API (alice: a user quota of 1,000,000 bytes, which RGW rounds
// up to whole KiB, and 50 objects; acme$bob: a user of tenant acme, no quota).
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'rgw', name), 'utf8'))

describe('rgw users: answers', () => {
  it('reads the figures and the enabled quota of a user, never its keys', () => {
    const alice = parseUserInfo(fixture('user-info-quota.json'), 'alice')
    assert.deepEqual(alice, {
      uid: 'alice',
      tenant: '',
      bytes: 0,
      objects: 0,
      quotaMaxBytes: 1000448,
      quotaMaxObjects: 50,
    })
    assert.equal(JSON.stringify(alice).includes('alicesecret'), false)
    assert.equal(JSON.stringify(alice).includes('ALICEKEY'), false)
  })

  it('leaves the quota out when it is disabled, and splits the tenant off', () => {
    assert.deepEqual(parseUserInfo(fixture('user-info-tenant.json'), 'acme$bob'), {
      uid: 'bob',
      tenant: 'acme',
      bytes: 0,
      objects: 0,
    })
  })

  it('leaves out a limit of -1 of an enabled quota', () => {
    const info = {
      user_id: 'u',
      stats: { size: 5, num_objects: 1 },
      user_quota: { enabled: true, max_size: -1, max_objects: 7 },
    }
    assert.deepEqual(parseUserInfo(info, 'u'), {
      uid: 'u',
      tenant: '',
      bytes: 5,
      objects: 1,
      quotaMaxObjects: 7,
    })
  })

  it('refuses figures that are not counts, naming the user but no key', () => {
    for (const size of [-1, 1.5, '12', Number.POSITIVE_INFINITY, null]) {
      assert.throws(
        () =>
          parseUserInfo(
            { user_id: 'u', stats: { size, num_objects: 1 }, keys: [{ secret_key: 's3cr3t' }] },
            'u',
          ),
        (error: unknown) =>
          error instanceof RgwAdminResponseError &&
          /user u\.stats\.size/.test(error.message) &&
          !error.message.includes('s3cr3t'),
      )
    }
    assert.throws(() => parseUserInfo({ user_id: 'u' }, 'u'), /stats: expected an object/)
    assert.throws(() => parseUserInfo([], 'u'), RgwAdminResponseError)
  })

  it('reads a page of the user list, and refuses a truncated page without a marker', () => {
    assert.deepEqual(parseUserPage({ keys: ['a', 'acme$b'], truncated: false, count: 2 }), {
      ids: ['a', 'acme$b'],
      marker: undefined,
    })
    assert.deepEqual(parseUserPage(fixture('user-list-page.json')).ids, ['alice', 'acme$bob'])
    assert.ok(parseUserPage(fixture('user-list-page.json')).marker)
    assert.throws(() => parseUserPage({ keys: ['a'], truncated: true }), /without a marker/)
    assert.throws(() => parseUserPage(['a']), /keys array/)
    assert.throws(() => parseUserPage({ keys: [''] }), /keys\[0\]/)
  })
})

/** A user list served page by page from memory, as RGW pages it. */
function memoryUsers(count: number, gone: ReadonlySet<string> = new Set()) {
  const ids = Array.from({ length: count }, (_, index) => `user-${String(index).padStart(4, '0')}`)
  const calls = { pages: 0, infos: 0 }
  const reader: UserReader = {
    async listUsers({ marker, maxEntries }) {
      calls.pages++
      const start = marker === undefined ? 0 : Number(marker)
      const end = Math.min(ids.length, start + maxEntries)
      return { ids: ids.slice(start, end), marker: end < ids.length ? String(end) : undefined }
    },
    async userInfo(id) {
      calls.infos++
      if (gone.has(id))
        throw Object.assign(new Error('RGW admin API answered 404 NoSuchUser'), { code: 'NoSuchUser' })
      return { uid: id, tenant: '', bytes: id.length, objects: 1 }
    },
  }
  return { reader, calls }
}

describe('rgw users: reading, bounded', () => {
  const signal = new AbortController().signal

  it('follows the pages and measures every user under the bound', async () => {
    const { reader, calls } = memoryUsers(7)
    const scan = await readUsers(reader, { maxUsers: 100, signal, pageSize: 3 })
    assert.equal(scan.users.length, 7)
    assert.equal(scan.omitted, 0)
    assert.equal(calls.pages, 3)
    assert.deepEqual(
      scan.users.map((user) => user.uid),
      [...scan.users.map((user) => user.uid)].sort(),
    )
  })

  it('measures the first RGW_USERS_MAX users and counts the others', async () => {
    const { reader, calls } = memoryUsers(10)
    const scan = await readUsers(reader, { maxUsers: 4, signal, pageSize: 3 })
    assert.deepEqual(
      scan.users.map((user) => user.uid),
      ['user-0000', 'user-0001', 'user-0002', 'user-0003'],
    )
    assert.equal(scan.omitted, 6)
    assert.equal(calls.infos, 4)
  })

  it('leaves out a user deleted between the list and its answer', async () => {
    const { reader } = memoryUsers(3, new Set(['user-0001']))
    const scan = await readUsers(reader, { maxUsers: 10, signal })
    assert.deepEqual(
      scan.users.map((user) => user.uid),
      ['user-0000', 'user-0002'],
    )
  })

  it('stops at a marker that does not move', async () => {
    let pages = 0
    const stuck: UserReader = {
      async listUsers() {
        pages++
        return { ids: ['same'], marker: 'm' }
      },
      async userInfo(id) {
        return { uid: id, tenant: '', bytes: 0, objects: 0 }
      },
    }
    const scan = await readUsers(stuck, { maxUsers: 10, signal })
    assert.equal(pages, 2)
    assert.equal(scan.users.length, 1, 'one user however often it is listed')
  })

  it('checks a stored per-user part', () => {
    assert.equal(
      userScanProblem({ users: [{ uid: 'a', tenant: '', bytes: 1, objects: 1 }], omitted: 0 }),
      undefined,
    )
    assert.match(
      String(userScanProblem({ users: [{ uid: 'a', tenant: '', bytes: -1, objects: 1 }], omitted: 0 })),
      /bytes/,
    )
    const twice = { uid: 'a', tenant: 't', bytes: 1, objects: 1 }
    assert.match(String(userScanProblem({ users: [twice, twice], omitted: 0 })), /twice/)
  })
})

describe('rgw usage log: answers', () => {
  it('gives each bucket its hours and categories; ops on no bucket are left out', () => {
    const log = parseUsageLog(fixture('usage-log.json'))
    assert.deepEqual([...log.keys()].sort(), ['acme:bob-b', 'alice-b'])
    const alice = log.get('alice-b')?.get(1796299200)
    assert.deepEqual(alice?.get('put_obj'), { ops: 2, successfulOps: 2, bytesSent: 0, bytesReceived: 1300 })
    assert.deepEqual(alice?.get('get_obj'), { ops: 1, successfulOps: 1, bytesSent: 1000, bytesReceived: 0 })
    assert.deepEqual(log.get('acme:bob-b')?.get(1796299200)?.get('put_obj')?.bytesReceived, 777)
  })

  it('is empty when the log is off (RGW answers no entries)', () => {
    assert.equal(parseUsageLog({ entries: [] }).size, 0)
    assert.equal(parseUsageLog({ summary: [] }).size, 0)
  })

  it('refuses figures that are not counts, and skips category names that are not operations', () => {
    const answer = (figures: Record<string, unknown>) => ({
      entries: [{ user: 'u', buckets: [{ bucket: 'b', epoch: 3600, owner: 'u', categories: [figures] }] }],
    })
    const good = { category: 'put_obj', ops: 1, successful_ops: 1, bytes_sent: 0, bytes_received: 5 }
    assert.throws(() => parseUsageLog(answer({ ...good, ops: -1 })), /categories\[0\]\.ops/)
    assert.throws(() => parseUsageLog(answer({ ...good, bytes_sent: 'x' })), /bytes_sent/)
    assert.equal(
      parseUsageLog(answer({ ...good, category: 'Not An Op{}' }))
        .get('b')
        ?.get(3600)?.size,
      0,
    )
    assert.throws(() => parseUsageLog({ entries: {} }), /usage.entries: expected an array/)
  })
})

const figures = (ops: number, bytesReceived = 0): UsageLogFigures => ({
  ops,
  successfulOps: ops,
  bytesSent: 0,
  bytesReceived,
})
const hours = (entries: Record<number, Record<string, UsageLogFigures>>): UsageLogHours =>
  new Map(
    Object.entries(entries).map(([epoch, categories]) => [
      Number(epoch),
      new Map(Object.entries(categories)),
    ]),
  )

describe('rgw usage log: counters that never go down', () => {
  const H = 3600

  it('start at the sum of what the log holds', () => {
    const log = advanceUsageLog(
      undefined,
      hours({ [H]: { put_obj: figures(2, 10) }, [2 * H]: { put_obj: figures(3, 5) } }),
    )
    assert.deepEqual(log.totals.put_obj, figures(5, 15))
    assert.deepEqual(
      log.recent.map((hour) => hour.epoch),
      [H, 2 * H],
    )
  })

  it('grow by what an hour gained and by new hours', () => {
    const first = advanceUsageLog(undefined, hours({ [H]: { put_obj: figures(2) } }))
    const second = advanceUsageLog(
      first,
      hours({ [H]: { put_obj: figures(4) }, [2 * H]: { get_obj: figures(1) } }),
    )
    assert.equal(second.totals.put_obj?.ops, 4)
    assert.equal(second.totals.get_obj?.ops, 1)
  })

  it('do not go down when RGW trims the oldest hours, nor when the whole log is trimmed', () => {
    const first = advanceUsageLog(
      undefined,
      hours({
        [H]: { put_obj: figures(10) },
        [2 * H]: { put_obj: figures(1) },
        [3 * H]: { put_obj: figures(1) },
      }),
    )
    assert.equal(first.totals.put_obj?.ops, 12)
    const trimmed = advanceUsageLog(
      first,
      hours({ [2 * H]: { put_obj: figures(1) }, [3 * H]: { put_obj: figures(3) } }),
    )
    assert.equal(trimmed.totals.put_obj?.ops, 14)
    const empty = advanceUsageLog(trimmed, new Map())
    assert.equal(empty.totals.put_obj?.ops, 14)
    const after = advanceUsageLog(empty, hours({ [5 * H]: { put_obj: figures(2) } }))
    assert.equal(after.totals.put_obj?.ops, 16)
  })

  it('ignore closed hours older than those kept; a kept hour that went down counts anew', () => {
    const first = advanceUsageLog(
      undefined,
      hours({ [5 * H]: { put_obj: figures(3) }, [6 * H]: { put_obj: figures(3) } }),
    )
    const next = advanceUsageLog(
      first,
      hours({
        [H]: { put_obj: figures(100) },
        [5 * H]: { put_obj: figures(1) },
        [6 * H]: { put_obj: figures(4) },
      }),
    )
    // Hour 1 is closed (ignored); hour 5 went from 3 to 1: trimmed and written again, 1 new; hour 6: 1 more.
    assert.equal(next.totals.put_obj?.ops, 3 + 3 + 1 + 1)
  })

  it('a later read starts an hour before the newest hour seen, and a windowed read counts as the whole log would', () => {
    assert.equal(usageLogReadStart([]), undefined)
    assert.equal(usageLogReadStart([undefined, advanceUsageLog(undefined, new Map())]), undefined)
    // Each bucket's whole log, as the first scan read it.
    const whole = {
      busy: hours({
        [H]: { put_obj: figures(9) },
        [7 * H]: { put_obj: figures(2) },
        [8 * H]: { put_obj: figures(1) },
      }),
      quiet: hours({ [2 * H]: { get_obj: figures(5) }, [3 * H]: { get_obj: figures(1) } }),
    }
    const first = {
      busy: advanceUsageLog(undefined, whole.busy),
      quiet: advanceUsageLog(undefined, whole.quiet),
    }
    const start = usageLogReadStart(Object.values(first))
    assert.equal(start, 7 * H)
    // Then: hour 8 grows, hour 9 is new for busy, quiet gets an entry in hour 9. The window from
    // `start` holds hours 7 to 9 of busy and hour 9 of quiet; the whole log still holds the old ones.
    const later = {
      busy: hours({
        [H]: { put_obj: figures(9) },
        [7 * H]: { put_obj: figures(2) },
        [8 * H]: { put_obj: figures(3) },
        [9 * H]: { put_obj: figures(1) },
      }),
      quiet: hours({
        [2 * H]: { get_obj: figures(5) },
        [3 * H]: { get_obj: figures(1) },
        [9 * H]: { get_obj: figures(4) },
      }),
    }
    const windowed = (bucket: keyof typeof later) =>
      new Map([...later[bucket]].filter(([epoch]) => epoch >= (start ?? 0)))
    // The same counters (the hours kept to compare with may differ: the window lacks closed ones).
    for (const bucket of ['busy', 'quiet'] as const)
      assert.deepEqual(
        advanceUsageLog(first[bucket], windowed(bucket)).totals,
        advanceUsageLog(first[bucket], later[bucket]).totals,
        bucket,
      )
    assert.equal(advanceUsageLog(first.busy, windowed('busy')).totals.put_obj?.ops, 9 + 2 + 3 + 1)
    assert.equal(advanceUsageLog(first.quiet, windowed('quiet')).totals.get_obj?.ops, 6 + 4)
  })
})
