// A refused request's error as one line for a toast or a notice. Its own module so the config-writes chunk reads it
// without importing the controller (which imports that chunk's type: the two imported each other).
import type { ErrorShape } from '../../../shared/methods'

export function errorText(e: ErrorShape | unknown): string {
  if (e && typeof e === 'object' && 'message' in e) {
    const err = e as ErrorShape
    return err.code ? `${err.message}` : String(err.message)
  }
  return String(e)
}
