// The text written for a changed config. `loopdesk.json` is the user's file: when they annotated it with
// comments, a save from the window or the CLI edits only the values that changed, in place, so the comments
// and their layout stay. That works for JSON-with-comments (the common case); a file that uses other JSON5
// syntax (unquoted keys, single quotes) is written out in full, and the caller keeps the old text beside it.
import { isDeepStrictEqual } from 'node:util'
import JSON5 from 'json5'
import { isPlainObject } from './validate'
import { applyEdits, createScanner, findNodeAtLocation, modify, parse, parseTree, type JSONPath, type ParseError } from 'jsonc-parser'

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot read: its values
const LINE_COMMENT = 12
const BLOCK_COMMENT = 13
const EOF = 17

export interface ConfigText {
  text: string
  /** the old text had comments that the new text does not keep */
  commentsLost: boolean
}

export function configTextFor(oldText: string | undefined, next: Record<string, unknown>): ConfigText {
  const plain = JSON.stringify(next, null, 2) + '\n'
  if (oldText === undefined || !hasComments(oldText)) return { text: plain, commentsLost: false }
  const edited = editInPlace(oldText, next)
  return edited === undefined ? { text: plain, commentsLost: true } : { text: edited, commentsLost: false }
}

function hasComments(text: string): boolean {
  const scanner = createScanner(text, false)
  for (let kind: number = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind === LINE_COMMENT || kind === BLOCK_COMMENT) return true
  }
  return false
}

function editInPlace(oldText: string, next: Record<string, unknown>): string | undefined {
  const errors: ParseError[] = []
  const old: unknown = parse(oldText, errors, { allowTrailingComma: true, disallowComments: false })
  if (errors.length || !isPlainObject(old)) return undefined
  const changes: Array<[JSONPath, unknown]> = []
  diff([], old, next, changes)
  const indent = /^([ \t]+)\S/m.exec(oldText)?.[1] ?? '  '
  const formattingOptions = {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: oldText.includes('\r\n') ? '\r\n' : '\n',
  }
  let text = oldText
  try {
    // a new key goes first in its object: appended last, it would land before the trailing comment of the
    // line it follows and seem to be what that comment is about
    for (const [path, value] of changes) text = applyEdits(text, modify(text, path, value, { formattingOptions, getInsertionIndex: () => 0 }))
    // what is written must read back as exactly the new config, or the full rewrite is used
    return isDeepStrictEqual(JSON5.parse(text), JSON.parse(JSON.stringify(next))) ? text : undefined
  } catch {
    return undefined
  }
}

/** The smallest set of (path, new value) that turns `a` into `b`; arrays change as a whole. */
function diff(path: JSONPath, a: unknown, b: unknown, out: Array<[JSONPath, unknown]>): void {
  if (isDeepStrictEqual(a, b)) return
  if (!isPlainObject(a) || !isPlainObject(b)) {
    out.push([path, b])
    return
  }
  for (const key of Object.keys(a)) if (b[key] === undefined) out.push([[...path, key], undefined])
  for (const key of Object.keys(b)) {
    if (b[key] === undefined) continue
    diff([...path, key], a[key], b[key], out)
  }
}

/**
 * The text with the key at `path` renamed to `newKey` where it stands: its value, the comments in and around
 * it stay (a provider renamed in Settings keeps its annotations). Undefined when the text has no such key or
 * does not parse as JSON with comments; the caller then lets configTextFor write the change as any other.
 */
export function renameKeyInText(text: string, path: JSONPath, newKey: string): string | undefined {
  const errors: ParseError[] = []
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false })
  if (!tree || errors.length) return undefined
  const keyNode = findNodeAtLocation(tree, path)?.parent?.children?.[0]
  if (!keyNode || keyNode.type !== 'string' || keyNode.value !== path[path.length - 1]) return undefined
  return text.slice(0, keyNode.offset) + JSON.stringify(newKey) + text.slice(keyNode.offset + keyNode.length)
}
