import { readFile, writeFile } from 'node:fs/promises'
import { GENERATED_PAGES, updatePage } from './docs.js'

for (const page of Object.keys(GENERATED_PAGES) as (keyof typeof GENERATED_PAGES)[]) {
  const path = new URL(`../${GENERATED_PAGES[page]}`, import.meta.url)
  const before = await readFile(path, 'utf8')
  const after = updatePage(page, before)
  await writeFile(path, after)
  process.stdout.write(`${GENERATED_PAGES[page]} ${before === after ? 'already up to date' : 'updated'}\n`)
}
