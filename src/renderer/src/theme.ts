// Applies the theme preference (light / dark / system) to <html data-theme>, following the OS
// setting live when "system" is chosen.
import { useEffect } from 'react'
import { useAppStore } from './app-context'

export function resolveTheme(pref: 'light' | 'dark' | 'system'): 'light' | 'dark' {
  if (pref !== 'system') return pref
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
}

export function useTheme() {
  const pref = useAppStore('settings', (s) => s.prefs.theme)
  useEffect(() => {
    const apply = () => {
      document.documentElement.dataset.theme = resolveTheme(pref)
    }
    apply()
    if (pref !== 'system' || typeof matchMedia !== 'function') return
    const mq = matchMedia('(prefers-color-scheme: dark)')
    mq.addEventListener?.('change', apply)
    return () => mq.removeEventListener?.('change', apply)
  }, [pref])
}
