// Bundles a bench entry (or the scripted model server) with esbuild the way the app and the CLI ship:
// through tsx's loader every function is wrapped in keepNames' `__name` (a defineProperty per closure),
// which is CPU the shipped code does not spend. Bundles sit under node_modules/.cache so their package
// imports resolve; ROOT is passed in the environment because a bundle's own URL is not under bench/.
import path from 'node:path'
import fs from 'node:fs'
import { build } from 'esbuild'
import { workerBuild } from '../bin/cli-bundle.mjs'

export const BENCH_CACHE = 'node_modules/.cache/loopdesk-bench'

export async function bundleEntry(root: string, entry: string, name: string): Promise<string> {
  const outfile = path.join(root, BENCH_CACHE, name)
  fs.mkdirSync(path.dirname(outfile), { recursive: true })
  await build({
    entryPoints: [path.join(root, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  })
  return outfile
}

/** The gateway's socket-thread worker beside the bench bundles, where the gateway looks for it, built as the app and the CLI ship it. */
export async function bundleSocketThreadWorker(root: string): Promise<void> {
  await build({ ...workerBuild(path.join(root, BENCH_CACHE), path.join(root, 'src/main/gateway/socket-thread-worker.ts')), logLevel: 'warning' })
}
