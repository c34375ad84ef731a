// `edit`: exact-text replacement in a workspace file, written back atomically.
import { constants as C } from 'node:fs'
import Type from 'typebox'
import { atomicWriteConfined } from './atomic-write'
import { openConfined, privateDirsOf, refuseGitInternals, resolveInWorkspace } from './paths'
import { formatBytes, looksBinary, textResult, throwIfAborted } from './result'
import { READ_MAX_FILE_BYTES } from './read'
import { defineTool } from './spec'
import { refuseStartupWrite } from './startup-files'
import { WRITE_MAX_BYTES } from './write'

const params = Type.Object({
  path: Type.String({ description: 'File path, relative to the workspace' }),
  oldText: Type.String({ description: 'Exact text to replace (must match the file exactly, including whitespace)' }),
  newText: Type.String({ description: 'Replacement text' }),
  replaceAll: Type.Optional(Type.Boolean({ description: 'Replace every occurrence instead of requiring a unique match' })),
})

function countOccurrences(hay: string, needle: string): number {
  let n = 0
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) n++
  return n
}

function lineOf(text: string, index: number): number {
  let line = 1
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim()

export const editTool = defineTool(
  {
    name: 'edit',
    label: 'Edit file',
    description:
      'Replace exact text in a workspace file. oldText must match exactly once (include surrounding lines to make it unique) ' +
      'unless replaceAll is true. Read the file first to copy the exact text.',
    parameters: params,
    executionMode: 'sequential',
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'edit')
    if (p.oldText === '') throw new Error('oldText must not be empty; use write to create or overwrite a file')
    const rp = await resolveInWorkspace(ctx.workspaceDir, p.path, { privateDirs: privateDirsOf(ctx) })
    refuseGitInternals(rp, p.path)
    refuseStartupWrite(rp.abs, p.path, rp.root)
    const fh = await openConfined(rp, C.O_RDONLY)
    let buf: Buffer
    try {
      const st = await fh.stat()
      if (!st.isFile()) throw new Error(`"${rp.rel}" is not a regular file`)
      if (st.size > READ_MAX_FILE_BYTES) throw new Error(`"${rp.rel}" is too large to edit`)
      buf = await fh.readFile()
    } finally {
      await fh.close().catch(() => {})
    }
    if (looksBinary(buf)) throw new Error(`"${rp.rel}" looks like a binary file; it cannot be edited as text`)
    const text = buf.toString('utf8')

    let oldText = p.oldText
    let newText = p.newText
    let count = countOccurrences(text, oldText)
    // Files with CRLF line endings: models usually send LF; match them in the file's own style.
    if (count === 0 && text.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r\n')) {
      const crlf = oldText.replace(/\n/g, '\r\n')
      const c2 = countOccurrences(text, crlf)
      if (c2 > 0) {
        oldText = crlf
        newText = newText.replace(/\r?\n/g, '\r\n')
        count = c2
      }
    }
    if (count === 0) {
      const hint = squash(text).includes(squash(p.oldText))
        ? ' A match exists when whitespace is ignored: copy the exact indentation and line breaks from the file.'
        : ' Read the file to copy the exact text.'
      throw new Error(`oldText was not found in "${rp.rel}".${hint}`)
    }
    if (count > 1 && !p.replaceAll) {
      throw new Error(
        `oldText matches ${count} times in "${rp.rel}"; include more surrounding context to make it unique, or set replaceAll: true`,
      )
    }
    // The result is held as a string and a buffer before it is written: bound it as write bounds its content
    // (replaceAll of a one-character oldText in a 10 MB file with a long newText would otherwise build and
    // write gigabytes — or end in V8's "Invalid string length").
    const resultBytes = Buffer.byteLength(text, 'utf8') + count * (Buffer.byteLength(newText, 'utf8') - Buffer.byteLength(oldText, 'utf8'))
    if (resultBytes > WRITE_MAX_BYTES) {
      throw new Error(
        `the edited "${rp.rel}" would be ${formatBytes(resultBytes)} (${count} replacements), over the ${formatBytes(WRITE_MAX_BYTES)} limit for written files; nothing was changed`,
      )
    }
    const firstLine = lineOf(text, text.indexOf(oldText))
    // split/join: no special meaning for `$` in the replacement, unlike String.replace.
    const updated = text.split(oldText).join(newText)
    throwIfAborted(signal, 'edit')
    if (updated === text) return textResult(`No change: newText equals oldText in ${rp.rel}`, { path: rp.rel, replaced: 0 })
    await atomicWriteConfined(rp, updated)
    return textResult(
      `Edited ${rp.rel}: replaced ${count} occurrence${count === 1 ? '' : 's'} (first at line ${firstLine})`,
      { path: rp.rel, replaced: count, firstLine },
    )
  },
)
