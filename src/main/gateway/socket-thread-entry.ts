// Where the socket thread's worker comes from (socket-thread.ts starts it). A bundle ships it beside its chunks as
// socket-thread-worker.mjs: the app's (electron.vite.config.ts), the CLI's (bin/cli-bundle.mjs), the bench's. From
// the sources (vitest, tsx) it is bundled alone by esbuild once per source state into node_modules/.cache
// (cli-bundle.mjs cachedWorker): through tsx the thread would transform its modules at every start (~1 s, up to
// 7 s on a loaded box). Without esbuild (or a writable cache) the sources still run through tsx.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

export interface WorkerEntry {
  url: URL
  /** tsx's ESM API, when the worker's sources are run as they are */
  viaTsx?: string
}

const here = import.meta.url
const fromSources = here.endsWith('.ts')
const shipped = () => new URL('./socket-thread-worker.mjs', here)

/** Whether this build can start the worker (from the sources it always can). */
export function socketThreadAvailable(): boolean {
  return fromSources || existsSync(fileURLToPath(shipped()))
}

/** The worker to start; `cacheDir` is where the sources' bundle goes (cli-bundle.mjs's CACHE_DIR by default). */
export async function workerEntry(cacheDir?: string): Promise<WorkerEntry | undefined> {
  if (!fromSources) {
    const url = shipped()
    return existsSync(fileURLToPath(url)) ? { url } : undefined
  }
  try {
    // a computed URL: the app's and the CLI's bundlers leave it alone (they never take this branch)
    const bundles = (await import(new URL('../../../bin/cli-bundle.mjs', here).href)) as typeof import('../../../bin/cli-bundle.mjs')
    return { url: pathToFileURL(await bundles.cachedWorker(cacheDir)) }
  } catch (err) {
    if (process.env.LOOPDESK_DEBUG) console.error(`gateway: no socket-thread worker bundle (${(err as Error)?.message ?? err}); using tsx`)
  }
  // tsx's ESM API (its package resolves `require` to the CommonJS copy of the same API)
  const api = createRequire(fileURLToPath(here)).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')
  return { url: new URL('./socket-thread-worker.ts', here), viaTsx: pathToFileURL(api).href }
}
