// An append that is all-or-nothing for a process that lives on: a write the disk refuses part-way (ENOSPC after
// some bytes) is cut back to where the file ended, so no torn line is left for the next append to be glued onto.
import fs from 'node:fs'

/**
 * Writes all of `buf` at the end of `fd`; when a write fails part-way, cuts the file back to `size` (its length
 * before) and rethrows. `label` names the file's kind in the warning when even the cut-back fails.
 */
export function writeWholeOrUndo(fd: number, buf: Buffer, size: number, label: string): void {
  let off = 0
  try {
    while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off)
  } catch (err) {
    // a write that throws wrote nothing: only the earlier, partial ones are undone
    if (off > 0) {
      try {
        fs.ftruncateSync(fd, size)
      } catch (undo) {
        // the torn line stays: readers skip it and the next append starts on a new line
        console.warn(`[${label}] could not cut back a failed write: ${(undo as Error).message}`)
      }
    }
    throw err
  }
}

/** Whether the file behind `fd` (of `size` bytes) ends in a newline — or is empty. */
export function endsInNewline(fd: number, size: number): boolean {
  if (size === 0) return true
  const last = Buffer.alloc(1)
  fs.readSync(fd, last, 0, 1, size - 1)
  return last[0] === 0x0a
}
