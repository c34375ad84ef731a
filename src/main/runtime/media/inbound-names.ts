// How inbound attachments are named on disk, in one place for the writer (attachments.ts) and the garbage
// collector (media-gc.ts): `<uuid>.<ext>` directly under `<stateDir>/media/inbound`. The collector only ever
// touches files whose name matches this exactly, so nothing else a user puts there is at risk.
import { randomUUID } from 'node:crypto'

/** `<lowercase v4-style uuid>.<1-10 lowercase letters/digits>`, the uuid captured. */
const INBOUND_NAME_RE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.[a-z0-9]{1,10}$/

/** A fresh file name for a saved attachment (`ext` already lowercase, 1-10 letters/digits). */
export function newInboundName(ext: string): string {
  const name = `${randomUUID()}.${ext}`
  // the collector must recognize every name the writer makes; a bad ext would make the file immortal
  if (!INBOUND_NAME_RE.test(name)) throw new Error(`invalid attachment extension ${JSON.stringify(ext)}`)
  return name
}

/** The uuid of an inbound file name, or undefined when the name is not ours. */
export function inboundUuid(name: string): string | undefined {
  return INBOUND_NAME_RE.exec(name)?.[1]
}

/**
 * Any uuid-shaped token in text. Case-insensitive (a path typed in upper case names the same file on a
 * case-insensitive file system), so matches are lowercased by the caller.
 */
export const UUID_TOKEN_RE = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g

/** Length of a uuid token (a chunked scan keeps this many bytes minus one of overlap). */
export const UUID_TOKEN_LENGTH = 36

/** The part of a uuid after its first 8 hex digits: starts with '-', which a scan finds quickly (3-4x faster). */
const UUID_TAIL_RE = /-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)

/** Calls `found` with each uuid token of `text`, lowercased (what UUID_TOKEN_RE matches, found faster). */
export function eachUuidToken(text: string, found: (uuid: string) => void): void {
  const re = new RegExp(UUID_TAIL_RE.source, 'g')
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const start = m.index - 8
    if (start < 0) continue
    let hex = true
    for (let k = start; k < m.index && hex; k++) hex = isHex(text.charCodeAt(k))
    if (hex) found(text.slice(start, m.index + m[0].length).toLowerCase())
  }
}

/** The uuid tokens in a text, lowercased. */
export function uuidTokens(text: string): string[] {
  const out: string[] = []
  eachUuidToken(text, (id) => out.push(id))
  return out
}
