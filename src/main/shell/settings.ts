// UI preferences (theme, panel layout) and the window geometry, kept in electron-store in userData.
// The runtime serves loopdesk.prefs.get/set through the `prefs` provider made here.
import type Store from 'electron-store'
import { invalid } from '../api/errors'
import type { Prefs } from '../../shared/methods'
import { openStore } from './store'

export interface WindowState {
  x?: number
  y?: number
  width: number
  height: number
  maximized: boolean
}

type SettingsData = { prefs: Prefs; window: WindowState | null }

// Same defaults as the runtime's headless prefs (runtime/handlers-system.ts).
export const DEFAULT_PREFS: Prefs = { theme: 'system', inspectorOpen: false, inspectorWidth: 360, sidebarWidth: 260 }

export interface PrefsProvider {
  get(): Prefs
  set(patch: Partial<Prefs>): Prefs
}

export interface ShellSettings {
  readonly prefs: PrefsProvider
  getWindowState(): WindowState | undefined
  setWindowState(state: WindowState): void
  /** called after prefs change (the shell follows the theme with nativeTheme) */
  onPrefsChange(listener: (prefs: Prefs) => void): () => void
  readonly path: string
}

const int = (v: unknown, min: number, max: number): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : undefined

/** Reads stored prefs field by field: a hand-edited or outdated value falls back to its default alone. */
export function sanitizePrefs(raw: unknown): Prefs {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>
  return {
    theme: r.theme === 'light' || r.theme === 'dark' || r.theme === 'system' ? r.theme : DEFAULT_PREFS.theme,
    inspectorOpen: typeof r.inspectorOpen === 'boolean' ? r.inspectorOpen : DEFAULT_PREFS.inspectorOpen,
    inspectorWidth: int(r.inspectorWidth, 200, 2000) ?? DEFAULT_PREFS.inspectorWidth,
    sidebarWidth: int(r.sidebarWidth, 150, 1000) ?? DEFAULT_PREFS.sidebarWidth,
  }
}

const PREF_KEYS = new Set(['theme', 'inspectorOpen', 'inspectorWidth', 'sidebarWidth'])

/**
 * Checks a prefs patch like the loopdesk.prefs.set schema does (a test keeps the two in agreement).
 * Hand-written so the shell does not load TypeBox before the window opens.
 */
export function checkPrefsPatch(patch: unknown): string | undefined {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return 'prefs patch must be an object'
  for (const [k, v] of Object.entries(patch)) {
    if (!PREF_KEYS.has(k)) return `/${k}: unexpected property '${k}'`
    if (v === undefined) continue
    if (k === 'theme' && v !== 'light' && v !== 'dark' && v !== 'system') return "/theme: must be 'light', 'dark' or 'system'"
    if (k === 'inspectorOpen' && typeof v !== 'boolean') return '/inspectorOpen: must be a boolean'
    if (k === 'inspectorWidth' && int(v, 200, 2000) === undefined) return '/inspectorWidth: must be an integer 200–2000'
    if (k === 'sidebarWidth' && int(v, 150, 1000) === undefined) return '/sidebarWidth: must be an integer 150–1000'
  }
  return undefined
}

export function sanitizeWindowState(raw: unknown): WindowState | undefined {
  if (!raw || typeof raw !== 'object') return undefined
  const r = raw as Record<string, unknown>
  const width = int(r.width, 100, 100_000)
  const height = int(r.height, 100, 100_000)
  if (width === undefined || height === undefined) return undefined
  const x = int(r.x, -1_000_000, 1_000_000)
  const y = int(r.y, -1_000_000, 1_000_000)
  const s: WindowState = { width, height, maximized: r.maximized === true }
  if (x !== undefined && y !== undefined) Object.assign(s, { x, y })
  return s
}

export function openShellSettings(opts: { cwd: string; name?: string }): ShellSettings {
  const store: Store<SettingsData> = openStore<SettingsData>({
    name: opts.name ?? 'settings',
    cwd: opts.cwd,
    defaults: { prefs: DEFAULT_PREFS, window: null },
  })
  const listeners = new Set<(p: Prefs) => void>()
  const prefs: PrefsProvider = {
    get: () => sanitizePrefs(store.get('prefs')),
    set(patch) {
      // Same rules as the loopdesk.prefs.set method, so direct callers get the same checks.
      const problem = checkPrefsPatch(patch)
      if (problem) throw invalid(`invalid prefs: ${problem}`)
      const next = sanitizePrefs({ ...prefs.get(), ...patch })
      store.set('prefs', next)
      for (const l of listeners) {
        try {
          l(next)
        } catch (err) {
          console.warn('[loopdesk] prefs listener failed:', (err as Error)?.message)
        }
      }
      return next
    },
  }
  return {
    prefs,
    getWindowState: () => sanitizeWindowState(store.get('window')),
    setWindowState: (state) => store.set('window', sanitizeWindowState(state) ?? null),
    onPrefsChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    path: store.path,
  }
}
