// Start-up fence cost per write: the check a write runs twice and an edit three times (startup-files.ts
// refuseStartupWrite), alone, and a batch of 200 real writes through the write tool, in a project workspace (a
// git repo) under a temp home with a typical config — without and with a relative core.hooksPath in ~/.gitconfig.
// Prints medians; no targets. Usage: npx tsx bench/startup-fence.bench.ts [source tree, default: this checkout]
// (to compare with an older commit: `git archive <rev> src | tar -x -C /tmp/old`, link node_modules, pass /tmp/old).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

type StartupFiles = typeof import('../src/main/runtime/tools/startup-files')
type Helpers = typeof import('../src/main/runtime/tools/test-helpers')

const tree = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function measure(hooks: 'none' | 'relative'): Promise<void> {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fence-bench-')))
  process.env.HOME = home
  process.env.PATH = ['/usr/local/bin', '/usr/bin', '/bin', `${home}/.local/bin`, `${home}/bin`, `${home}/.cargo/bin`].join(path.delimiter)
  const put = (rel: string, text = '') => {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true })
    fs.writeFileSync(path.join(home, rel), text)
  }
  put('.gitconfig', hooks === 'relative' ? '[core]\n\thooksPath = .githooks\n' : '[user]\n\tname = bench\n')
  put('.hgrc', '[ui]\n')
  put('.config/nvim/init.lua')
  put('src/work/proj/.git/HEAD', 'ref: refs/heads/main\n')
  const ws = path.join(home, 'src/work/proj')
  try {
    const sf = (await import(path.join(tree, 'src/main/runtime/tools/startup-files.ts'))) as StartupFiles
    const checks: number[] = []
    for (let r = 0; r < 9; r++) {
      sf.refuseStartupWrite(path.join(ws, 'warm.ts'), 'warm.ts', ws)
      const t0 = performance.now()
      for (let i = 0; i < 600; i++) sf.refuseStartupWrite(path.join(ws, `src/a/b/c/f${i}.ts`), `f${i}.ts`, ws)
      checks.push(performance.now() - t0)
    }
    const { makeCtx, run } = (await import(path.join(tree, 'src/main/runtime/tools/test-helpers.ts'))) as Helpers
    const ctx = makeCtx(ws)
    for (let i = 0; i < 20; i++) await run(ctx, 'write', { path: `warm/f${i}.ts`, content: 'x' })
    const writes: number[] = []
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now()
      for (let i = 0; i < 200; i++) await run(ctx, 'write', { path: `src/a/b/c/f${i}.ts`, content: `export const x${i} = ${r}\n` })
      writes.push(performance.now() - t0)
    }
    console.log(
      `hooksPath ${hooks.padEnd(8)}  600 checks: ${median(checks).toFixed(1)} ms   200 writes: ${median(writes).toFixed(0)} ms (fsync'd; noisy)`,
    )
  } finally {
    fs.rmSync(home, { recursive: true, force: true })
  }
}

console.log(`start-up fence cost, tree ${tree}`)
await measure('none')
await measure('relative')
