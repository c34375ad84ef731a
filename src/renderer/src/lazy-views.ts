// The views not needed at first paint, each in a chunk of its own (see lib/lazy-view.tsx). The idle
// warm-up preloads them, so opening one later rarely waits.
import { lazyView } from './lib/lazy-view'

export const { View: SettingsView, preload: preloadSettings } = lazyView(() => import('./components/Settings').then((m) => m.SettingsDialog))
export const { View: InspectorView, preload: preloadInspector } = lazyView(() => import('./components/Inspector').then((m) => m.Inspector))
