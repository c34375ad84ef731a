// Where the desktop app keeps its Electron `userData` (window settings, the safeStorage-encrypted keys,
// Chromium's profile), worked out without Electron. The shell hands the real folder to its runtime; a
// headless runtime (`loopdesk gateway run`, `loopdesk agent`) has no shell, yet its file tools must keep
// out of that folder just the same, so it fences the folder the app would use on this machine.
import os from 'node:os'
import path from 'node:path'

/**
 * What Electron's `app.getName()` returns for Loopdesk: package.json's `productName`, else its `name`
 * (package.json has only `name`; app-user-data.test.ts checks they agree).
 */
export const APP_NAME = 'loopdesk'

/**
 * The app's userData folder as Electron computes it: `<appData>/<app name>`, where appData is
 * `$XDG_CONFIG_HOME` or `~/.config` on Linux, `~/Library/Application Support` on macOS and `%APPDATA%` on
 * Windows. `LOOPDESK_USER_DATA_DIR` overrides it, as it does in the shell (`shell/app.ts`).
 */
export function appUserDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = env.LOOPDESK_USER_DATA_DIR?.trim()
  if (override) return path.resolve(override)
  if (platform === 'win32') {
    const home = env.USERPROFILE?.trim() || os.homedir()
    return path.win32.join(env.APPDATA?.trim() || path.win32.join(home, 'AppData', 'Roaming'), APP_NAME)
  }
  const home = env.HOME?.trim() || os.homedir()
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_NAME)
  return path.join(env.XDG_CONFIG_HOME?.trim() || path.join(home, '.config'), APP_NAME)
}
