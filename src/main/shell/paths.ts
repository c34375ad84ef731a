// Where things live. The state dir is shared with the `loopdesk` CLI (same default, same env variable),
// so a gateway or session started by one is visible to the other.
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

export function resolveStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.LOOPDESK_STATE_DIR?.trim()
  return fromEnv ? resolve(fromEnv) : join(homedir(), '.loopdesk')
}
