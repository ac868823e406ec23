import assert from 'node:assert/strict'
import { test } from 'node:test'
import { fixedViolations } from '../../scripts/check-deps.js'

const violation = (from: string, to: string, rule = 'no-circular') => ({
  type: 'dependency',
  from,
  to,
  rule: { name: rule },
})

test('a listed violation that no longer occurs is named; one still there, or a new one, is not', () => {
  const remaining = violation('src/c.ts', 'src/d.ts', 'layer')
  const known = [violation('src/a.ts', 'src/b.ts'), remaining]
  assert.deepEqual(fixedViolations(known, known), [])
  assert.deepEqual(fixedViolations(known, [remaining, violation('src/e.ts', 'src/f.ts')]), [
    'no-circular: src/a.ts → src/b.ts',
  ])
  assert.equal(fixedViolations(known, [violation('src/a.ts', 'src/b.ts', 'layer')]).length, 2)
})
