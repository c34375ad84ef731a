// Where `loopdesk` runs the CLI from. The sources are TypeScript; run through tsx's loader, every start
// transforms each of ~200 files (~6 s on a loaded 2-core machine), and every function is wrapped in
// keepNames' `__name` for the life of the process (a defineProperty per closure made, ~10% of what the
// headless gateway's young-generation GCs had to copy). So the CLI is bundled once by esbuild — as
// electron-vite bundles the app — into node_modules/.cache/loopdesk/, keyed by the sources' sizes and
// modification times, and loaded from there (~0.6 s). Packages stay external (resolved from node_modules
// above the cache, which is why it lives there). When no bundle can be made (no esbuild, read-only
// install) or LOOPDESK_CLI_TSX=1, the sources run through tsx as before. The gateway's socket-thread worker
// (src/main/gateway/socket-thread-worker.ts) is a second entry point, beside the chunks that start it; run from
// the sources, the gateway bundles that worker alone (cachedWorker) rather than transform it in the thread.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const ENTRY = path.join(ROOT, 'src', 'cli', 'main.ts')
const WORKER = path.join(ROOT, 'src', 'main', 'gateway', 'socket-thread-worker.ts')
/** LOOPDESK_CLI_CACHE moves it (it must be inside a directory whose node_modules holds our packages) */
export const CACHE_DIR = process.env.LOOPDESK_CLI_CACHE || path.join(ROOT, 'node_modules', '.cache', 'loopdesk')

/** The CLI module (src/cli/main.ts): from the cached bundle, else through tsx. */
export async function loadCli() {
  if (process.env.LOOPDESK_CLI_TSX !== '1') {
    let file
    try {
      file = await cachedBundle()
    } catch (err) {
      if (process.env.LOOPDESK_DEBUG) process.stderr.write(`loopdesk: no CLI bundle (${err?.message ?? err}); using tsx\n`)
    }
    if (file) {
      process.setSourceMapsEnabled(true) // stack traces name the .ts sources
      return import(pathToFileURL(file).href)
    }
  }
  const { register } = await import('tsx/esm/api')
  register()
  return import(pathToFileURL(ENTRY).href)
}

/** Entry file of the bundle for the current sources (it may not be built yet). */
export function bundleEntry() {
  return path.join(CACHE_DIR, `cli-${sourceStamp()}`, 'main.mjs')
}

/** Entry file of the bundle for the current sources, built when missing. */
export async function cachedBundle() {
  const entry = bundleEntry()
  const dir = path.dirname(entry)
  if (fs.existsSync(entry)) return entry
  await buildInto(dir, entry, (build, outdir) => [
    build({
      ...COMMON,
      entryPoints: [ENTRY],
      outdir,
      // commands stay separate chunks, loaded on use (`gateway call` does not load the runtime)
      splitting: true,
      packages: 'external',
    }),
    // beside the chunks: socket-thread-entry.ts looks for it next to its own module
    build(workerBuild(outdir)),
  ])
  for (const old of fs.readdirSync(CACHE_DIR)) {
    if (/^cli-[0-9a-f]+$/.test(old) && old !== path.basename(dir)) fs.rmSync(path.join(CACHE_DIR, old), { recursive: true, force: true })
  }
  return entry
}

/**
 * The gateway's socket-thread worker alone, bundled for the current sources (built when missing): what the
 * gateway starts when it runs from the sources (vitest, tsx). Bundles of other source states are dropped once
 * unused for an hour — not at once: worktrees sharing node_modules each use their own, and a gateway may be
 * about to start one.
 */
export async function cachedWorker(cacheDir = CACHE_DIR) {
  const dir = path.join(cacheDir, `socket-thread-${sourceStamp()}`)
  const entry = path.join(dir, 'socket-thread-worker.mjs')
  if (fs.existsSync(entry)) {
    try {
      const now = new Date()
      fs.utimesSync(dir, now, now) // in use (see above)
    } catch {
      // a read-only install: nothing there is cleaned up either
    }
    return entry
  }
  await buildInto(dir, entry, (build, outdir) => [build(workerBuild(outdir))], cacheDir)
  const unused = Date.now() - 3600_000
  for (const old of fs.readdirSync(cacheDir)) {
    if (!/^socket-thread-[0-9a-f]+(\.\d+-[0-9a-f]+\.tmp)?$/.test(old) || old === path.basename(dir)) continue
    const p = path.join(cacheDir, old)
    if ((fs.statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < unused) fs.rmSync(p, { recursive: true, force: true })
  }
  return entry
}

const COMMON = {
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'silent',
}

/**
 * esbuild's options for the socket thread's worker, its packages inlined, written into `outdir` (the app's build
 * uses them too: electron.vite.config.ts, passing `entry` from its own root). A thread starts with an empty module
 * cache, and loading typebox's and ws's files one by one was most of its start (~0.4–0.9 s against ~0.1 s on a
 * loaded 2-core box). `require` is made for the CommonJS ones (ws), whose own requires an ES module cannot run.
 */
export function workerBuild(outdir, entry = WORKER) {
  return {
    ...COMMON,
    entryPoints: { 'socket-thread-worker': entry },
    outdir,
    banner: { js: "import { createRequire as __loopdeskRequire } from 'node:module'; const require = __loopdeskRequire(import.meta.url);" },
  }
}

/** The directory `dir` (which holds `entry` once built), written by `builds(esbuild's build, where)`. */
async function buildInto(dir, entry, builds, cacheDir = CACHE_DIR) {
  const { build } = await import('esbuild')
  fs.mkdirSync(cacheDir, { recursive: true })
  // built beside and renamed: two builds at once (processes, or two gateways in one) each write their own, and
  // nothing loads a torn file
  const tmp = `${dir}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`
  try {
    await Promise.all(builds(build, tmp))
    try {
      fs.renameSync(tmp, dir)
    } catch (err) {
      if (!fs.existsSync(entry)) throw err // another process's identical build won the rename
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

/** Changes when a source the CLI bundles (src/cli, src/main, src/shared; not tests), the manifest or the lock changes. */
export function sourceStamp() {
  const hash = crypto.createHash('sha256')
  const add = (p) => {
    const st = fs.statSync(p, { throwIfNoEntry: false })
    if (st) hash.update(`${path.relative(ROOT, p)}\0${st.size}\0${st.mtimeMs}\n`)
  }
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (!/\.test\.tsx?$/.test(e.name)) add(p)
    }
  }
  for (const dir of ['cli', 'main', 'shared']) walk(path.join(ROOT, 'src', dir))
  add(path.join(ROOT, 'package.json'))
  add(path.join(ROOT, 'package-lock.json'))
  add(fileURLToPath(import.meta.url)) // how it is built
  return hash.digest('hex').slice(0, 16)
}
