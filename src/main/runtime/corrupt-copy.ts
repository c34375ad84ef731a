// A damaged state file that is about to be replaced is copied beside itself first, so what it held can still be
// recovered by hand (sessions.json, the gateway's devices.json).
import fs from 'node:fs'

/** Copies `file` to `<file>.corrupt-<ISO time>`: that path, and the error when the copy could not be made. */
export function keepCorruptCopy(file: string): { copy: string; error?: unknown } {
  const copy = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`
  try {
    fs.copyFileSync(file, copy)
    return { copy }
  } catch (error) {
    return { copy, error }
  }
}
