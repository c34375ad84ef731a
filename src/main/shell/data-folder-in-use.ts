// The desktop app finds another gateway serving its data folder (a `loopdesk gateway run` in a terminal, or
// another copy of the app with its own profile): starting its runtime there would put two runtimes on one
// state dir — separate queues and run state over the same transcripts — and its gateway would take
// gateway.json over, so the CLI and the dashboard would silently switch to it. The single-instance lock only
// covers copies of the app with the same profile. So before its runtime starts, the app says who uses the
// folder and waits: Retry (after the user stopped it) checks again, Quit quits. No electron here: the shell
// only shows the question (app.ts), this decides it (tested in plain Node).
// A runtime with no gateway counts too (embedded-runtimes.ts): a `loopdesk agent --local` run, or another app
// whose gateway has not started (or failed to).
import type { GatewayInfo } from '../gateway/state-files'
import { servingGateway } from '../gateway/gateway-in-use'
import { liveEmbeddedRuntime, type EmbeddedRuntimeInfo } from '../gateway/embedded-runtimes'

/** what uses the folder: a gateway serving it, or a runtime without one */
export type FolderUser = GatewayInfo | EmbeddedRuntimeInfo

export interface InUseQuestion {
  /** the dialog's main line */
  message: string
  /** what it means and what to do */
  detail: string
  /** button labels, Retry first (the default) */
  buttons: [retry: string, quit: string]
}

export type InUseAnswer = 'retry' | 'quit'

/** The question for a gateway found serving `stateDir`, named by what started it. */
export function inUseQuestion(info: FolderUser, stateDir: string): InUseQuestion {
  if (info.launchedBy === 'local') {
    return {
      message: `A \`loopdesk agent --local\` run (pid ${info.pid}) already uses this data folder`,
      detail:
        `${stateDir}\n\nLet it finish, or stop it (Ctrl+C in its terminal, or kill ${info.pid}), then choose Retry. ` +
        'Two Loopdesk runtimes on one data folder would each run their own queues over the same conversations.',
      buttons: ['Retry', 'Quit'],
    }
  }
  // a `gateway run` still starting (its runtime record, no gateway.json yet) is the same terminal gateway
  const fromTerminal = info.launchedBy === 'cli' || info.launchedBy === 'gateway'
  const who =
    fromTerminal
      ? `A Loopdesk gateway (pid ${info.pid}, started from a terminal)`
      : info.launchedBy === 'app'
        ? `Another Loopdesk app (pid ${info.pid})`
        : `A Loopdesk gateway (pid ${info.pid})`
  const stop =
    info.launchedBy === 'app'
      ? 'Quit that Loopdesk'
      : fromTerminal
        ? `Stop it (Ctrl+C in its terminal, or kill ${info.pid})`
        : `Stop it (kill ${info.pid})`
  return {
    message: `${who} already uses this data folder`,
    detail:
      `${stateDir}\n\n${stop}, then choose Retry. ` +
      'Two Loopdesk runtimes on one data folder would each run their own queues over the same conversations. ' +
      (info.launchedBy === 'app' ? '' : 'Meanwhile `loopdesk dashboard --open` shows its conversations in a browser.'),
    buttons: ['Retry', 'Quit'],
  }
}

export interface DataFolderCheck {
  /** the gateway serving the folder, if another one does (default: gateway.json's pid alive and its port answering) */
  serving?: (stateDir: string) => Promise<GatewayInfo | undefined>
  /** a runtime without a gateway using the folder (default: a live record under gateway/runtimes/) */
  embedded?: (stateDir: string) => EmbeddedRuntimeInfo | undefined
  /** shows the question, resolves with the user's answer */
  ask: (q: InUseQuestion, info: FolderUser) => Promise<InUseAnswer>
}

/**
 * Resolves 'start' once no other gateway serves `stateDir` and no other runtime uses it (at once when none does), or 'quit' when the user
 * chose to quit instead of waiting for it.
 */
export async function claimDataFolder(stateDir: string, o: DataFolderCheck): Promise<'start' | 'quit'> {
  const serving = o.serving ?? ((dir: string) => servingGateway(dir))
  const embedded = o.embedded ?? liveEmbeddedRuntime
  for (;;) {
    const info = (await serving(stateDir)) ?? embedded(stateDir)
    if (!info) return 'start'
    if ((await o.ask(inUseQuestion(info, stateDir), info)) === 'quit') return 'quit'
  }
}
