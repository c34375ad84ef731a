// React access to the controller and the stores of this app instance.
import { createContext, useContext } from 'react'
import { useStore } from 'zustand'
import type { StoreApi } from 'zustand/vanilla'
import type { Controller } from './state/controller'
import type { AppStores } from './state/stores'

export interface AppContextValue {
  controller: Controller
  stores: AppStores
}

export const AppContext = createContext<AppContextValue | null>(null)

export function useApp(): AppContextValue {
  const v = useContext(AppContext)
  if (!v) throw new Error('AppContext missing')
  return v
}

export function useController(): Controller {
  return useApp().controller
}

type StateOf<K extends keyof AppStores> = AppStores[K] extends StoreApi<infer S> ? S : never

/** Select from one of the app's stores. */
export function useAppStore<K extends keyof AppStores, U>(name: K, selector: (s: StateOf<K>) => U): U {
  const { stores } = useApp()
  const store = stores[name] as unknown as StoreApi<StateOf<K>>
  return useStore<StoreApi<StateOf<K>>, U>(store, selector)
}
