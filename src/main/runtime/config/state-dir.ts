import os from 'node:os'
import path from 'node:path'

/** Expands a leading `~` to the home directory. */
export function expandHome(p: string): string {
  if (p === '~') return os.homedir()
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2))
  return p
}

/** `$LOOPDESK_STATE_DIR` (absolute, `~` expanded), else `~/.loopdesk`. */
export function resolveStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.LOOPDESK_STATE_DIR?.trim()
  return fromEnv ? path.resolve(expandHome(fromEnv)) : path.join(os.homedir(), '.loopdesk')
}

/** `$LOOPDESK_CONFIG_PATH`, else `<stateDir>/loopdesk.json`. */
export function resolveConfigPath(stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.LOOPDESK_CONFIG_PATH?.trim()
  return fromEnv ? path.resolve(expandHome(fromEnv)) : path.join(stateDir, 'loopdesk.json')
}
