// An API key as users paste it: copied out of a .env or JSON file with its quotes, out of a curl line with
// "Bearer ", or wrapped across two lines. Stored as given, each of these only fails later as a 401 that
// does not say why; the quotes and the prefix are dropped here, a key with a break inside is refused.
import { invalid } from '../../api/errors'

const QUOTES: Array<[string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ['`', '`'],
  ['\u201c', '\u201d'],
  ['\u2018', '\u2019'],
]

/** The key to store for `provider`; throws INVALID_REQUEST naming what is wrong (never the key itself). */
export function cleanPastedKey(provider: string, raw: string): string {
  let key = raw.trim()
  for (const [open, close] of QUOTES) {
    if (key.length >= 2 && key.startsWith(open) && key.endsWith(close)) {
      key = key.slice(open.length, -close.length).trim()
      break
    }
  }
  key = key.replace(/^(authorization:\s*)?bearer\s+/i, '')
  const at = `models.providers.${provider}.apiKey`
  if (!key) throw invalid(`${at}: must not be empty (use null to remove it)`)
  if (/[\r\n]/.test(key)) throw invalid(`${at}: the key has a line break in it — copy it again and paste it as one line`)
  if (/\s/.test(key)) throw invalid(`${at}: the key has a space in it — copy it again; an API key is one word`)
  return key
}
