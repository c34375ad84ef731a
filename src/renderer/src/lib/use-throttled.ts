// A value that follows its input at most once per `ms`: the first change shows at once, later ones within the
// window wait for its end (the newest wins), so a stream of updates redraws a few times a second, not per chunk.
import { useEffect, useRef, useState } from 'react'

export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value)
  const last = useRef(0)
  useEffect(() => {
    const wait = last.current + ms - Date.now()
    if (wait <= 0) {
      last.current = Date.now()
      setShown(value)
      return
    }
    const t = setTimeout(() => {
      last.current = Date.now()
      setShown(value)
    }, wait)
    return () => clearTimeout(t)
  }, [value, ms])
  return shown
}
