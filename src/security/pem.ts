/** One PEM block: its label (`CERTIFICATE`, `PRIVATE KEY`, ...) and its text, normalised. */
export interface PemBlock {
  readonly label: string
  readonly pem: string
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g

/**
 * The PEM blocks of a file, in file order. Whatever surrounds them is dropped: the text that
 * `openssl x509 -text` prints, `Bag Attributes` from a PKCS#12 export, `subject=` lines, comments.
 * Lines inside a block are trimmed, so indented or CRLF copies still parse.
 */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = []
  for (const match of text.matchAll(BLOCK)) {
    const label = match[1] ?? ''
    const body = (match[2] ?? '')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '')
    blocks.push({ label, pem: `-----BEGIN ${label}-----\n${body.join('\n')}\n-----END ${label}-----\n` })
  }
  return blocks
}

/** The CERTIFICATE blocks, in file order (a chain stays leaf first). */
export function certificateBlocks(text: string): string[] {
  return pemBlocks(text)
    .filter((block) => block.label === 'CERTIFICATE')
    .map((block) => block.pem)
}

/** The private key blocks (`PRIVATE KEY`, `RSA PRIVATE KEY`, `EC PRIVATE KEY`, ...). */
export function privateKeyBlocks(text: string): PemBlock[] {
  return pemBlocks(text).filter((block) => block.label.endsWith('PRIVATE KEY'))
}
