// Finds an Electron executable the same way the `electron` npm package does, without triggering its
// download (which cannot work on machines with no access to GitHub).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const SKIP_REASON =
  'no Electron binary: set ELECTRON_OVERRIDE_DIST_PATH to an unpacked Electron 45 (the folder holding the ' +
  '`electron` executable), or let `npm install` download it into node_modules/electron/dist'

export function findElectronBinary(root = process.cwd()): string | undefined {
  const pkg = join(root, 'node_modules', 'electron')
  const pathFile = join(pkg, 'path.txt')
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : process.platform === 'win32' ? 'electron.exe' : 'electron'
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH
  const candidate = override ? join(override, rel) : join(pkg, 'dist', rel)
  return existsSync(candidate) ? candidate : undefined
}
