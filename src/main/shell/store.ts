// Opens an electron-store file without ever losing data or refusing to start: a file that is not valid
// JSON is moved aside (kept for the user to inspect) and a fresh one is started.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ipcMain } from 'electron'
import Store from 'electron-store'
import { moveCorruptAside } from '../runtime/corrupt-copy'

export interface StoreOptions<T extends Record<string, unknown>> {
  /** file name without extension */
  name: string
  /** absolute directory (the shell passes app.getPath('userData')) */
  cwd: string
  defaults: T
}

export function openStore<T extends Record<string, unknown>>(opts: StoreOptions<T>): Store<T> {
  const make = () =>
    new Store<T>({
      name: opts.name,
      cwd: opts.cwd,
      defaults: opts.defaults,
      // Keys such as provider ids may contain dots; never treat them as paths.
      accessPropertiesByDotNotation: false,
      // Owner-only: the credentials file holds (encrypted) keys, the settings file window geometry.
      configFileMode: 0o600,
      watch: false,
    })
  try {
    return make()
  } catch (err) {
    if ((err as Error)?.name !== 'SyntaxError') throw err
    const file = join(opts.cwd, `${opts.name}.json`)
    if (existsSync(file)) {
      const aside = moveCorruptAside(file)
      console.warn(`[loopdesk] ${file} was not valid JSON; kept it as ${aside} and started fresh`)
    }
    return make()
  } finally {
    // electron-store registers a sync IPC listener for renderer-side stores, which we never use. Every
    // IPC entry point must validate its sender, so that unvalidated listener is removed.
    ipcMain?.removeAllListeners('electron-store-get-data')
  }
}
