import { readFile, writeFile } from 'node:fs/promises'
import { updateReadme } from './docs.js'

const path = new URL('../README.md', import.meta.url)
const before = await readFile(path, 'utf8')
const after = updateReadme(before)
await writeFile(path, after)
process.stdout.write(before === after ? 'README.md already up to date\n' : 'README.md updated\n')
