// The transcript find read last, as text and lowercase: the find bar asks again for every query typed, and reading,
// decoding and lowercasing a long transcript each time was a good part of a query's time once its replies' rendered
// text is kept (rendered-find.ts). Kept while the file is unchanged (inode, size, modification and change times:
// an append, an edit or a rewrite is a new read) and for a minute after its last use; one file at a time.
import fs from 'node:fs'
import { readRegularFileText } from '../open-regular-file'

interface Held {
  file: string
  stamp: string
  text: string
  /** the text lowercase, when lowercasing kept every offset (no character lowercases to two) */
  lower?: string
  timer: NodeJS.Timeout
}

const KEEP_MS = 60_000
let held: Held | undefined

const stampOf = (st: fs.BigIntStats) => `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`

function drop(): void {
  if (held) clearTimeout(held.timer)
  held = undefined
}

/** The file's text and its lowercase (undefined when that moved offsets), or undefined when it cannot be read. */
export async function readTranscriptForFind(file: string): Promise<{ text: string; lower?: string } | undefined> {
  let st: fs.BigIntStats
  try {
    st = await fs.promises.stat(file, { bigint: true })
  } catch {
    if (held?.file === file) drop()
    return undefined
  }
  const stamp = stampOf(st)
  if (held?.file === file && held.stamp === stamp) {
    held.timer.refresh()
    return held
  }
  drop()
  let text: string
  try {
    text = await readRegularFileText(file)
  } catch {
    return undefined
  }
  // changed while read: use it, keep nothing
  const after = await fs.promises.stat(file, { bigint: true }).catch(() => undefined)
  const lowered = text.toLowerCase()
  const lower = lowered.length === text.length ? lowered : undefined
  if (after && stampOf(after) === stamp) {
    const timer = setTimeout(drop, KEEP_MS)
    timer.unref()
    held = { file, stamp, text, lower, timer }
  }
  return { text, lower }
}

/** Forget the held transcript (tests). */
export function dropHeldTranscript(): void {
  drop()
}
