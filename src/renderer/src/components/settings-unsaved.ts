// What the Settings forms hold unsaved: closing Settings asks before dropping it.
import { createContext, useContext, useEffect, useId } from 'react'

/** Where the forms say what they hold that is not saved yet: closing Settings asks before dropping it. */
export const UnsavedContext = createContext<{ report(id: string, what: string | undefined): void } | undefined>(undefined)

/** `what` (e.g. "the Anthropic key") while the form holds unsaved input, else undefined. */
export function useUnsaved(what: string | undefined): void {
  const ctx = useContext(UnsavedContext)
  const id = useId()
  useEffect(() => {
    ctx?.report(id, what)
    return () => ctx?.report(id, undefined)
  }, [ctx, id, what])
}
