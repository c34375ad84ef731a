// The headless gateway the suite kills and restarts is the real CLI (src/cli/main.ts → `loopdesk gateway
// run`), bundled into one ESM file by esbuild (tsx's own transpiler). Same code as bin/loopdesk.mjs, but it
// starts in ~1 s instead of ~6 s of per-file tsx transforms on a loaded 2-core machine, which is what makes
// 20+ kill/restart cycles affordable. LOOPDESK_FAULTS_TSX=1 runs bin/loopdesk.mjs instead.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
export const BUNDLE = path.join(ROOT, 'test-results', 'faults', 'loopdesk-cli.mjs')
export const BIN = path.join(ROOT, 'bin', 'loopdesk.mjs')

export async function buildCliBundle(): Promise<string> {
  const { build } = await import('esbuild')
  fs.mkdirSync(path.dirname(BUNDLE), { recursive: true })
  const tmp = `${BUNDLE}.${process.pid}.tmp`
  await build({
    entryPoints: [path.join(ROOT, 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: tmp,
    logLevel: 'error',
    // CommonJS dependencies (ws) call require(): give the ESM bundle one
    banner: { js: "import { createRequire as __ldCreateRequire } from 'node:module'; const require = __ldCreateRequire(import.meta.url);" },
  })
  fs.renameSync(tmp, BUNDLE)
  return BUNDLE
}

/** argv (after `node`) that runs the loopdesk CLI with `args`. */
export function cliArgv(args: string[]): string[] {
  if (process.env.LOOPDESK_FAULTS_TSX === '1' || !fs.existsSync(BUNDLE)) return [BIN, ...args]
  return [BUNDLE, ...args]
}
