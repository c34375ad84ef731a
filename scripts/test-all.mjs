#!/usr/bin/env node
// `npm test`: typecheck, lint, build, unit tests (Vitest) and browser e2e (Playwright + Debian Chromium).
// Every step runs even if an earlier one failed, so one run shows everything that is wrong.
// Ends with one line `N passed, N failed[, N skipped]` (the form CI reads).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const reports = join(root, 'test-results', 'reports')
rmSync(reports, { recursive: true, force: true })
mkdirSync(reports, { recursive: true })

const totals = { passed: 0, failed: 0, skipped: 0 }
const summary = []

function run(label, cmd, args, env = {}) {
  const started = Date.now()
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`)
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NO_COLOR: '1', ...env } })
  const secs = ((Date.now() - started) / 1000).toFixed(1)
  return { ok: r.status === 0, secs }
}

function step(label, cmd, args) {
  const { ok, secs } = run(label, cmd, args)
  if (ok) totals.passed++
  else totals.failed++
  summary.push(`${ok ? 'PASS' : 'FAIL'}  ${label} (${secs}s)`)
  return ok
}

step('typecheck', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.node.json'])
step('typecheck (web)', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.web.json'])
step('lint', 'npx', ['eslint', '.', '--max-warnings=0'])
const built = step('build', 'npx', ['electron-vite', 'build'])

// Unit + integration tests (Vitest, node + jsdom projects).
{
  const out = join(reports, 'vitest.json')
  const { ok, secs } = run('unit tests (vitest)', 'npx', [
    'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`,
  ])
  const counts = readVitest(out)
  addCounts('unit tests (vitest)', ok, secs, counts)
}

// Browser e2e (Playwright with Debian Chromium). Needs the build.
{
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  if (!existsSync(chromium)) {
    totals.failed++
    summary.push(`FAIL  e2e: no Chromium at ${chromium} (install it: apt-get install -y chromium)`)
  } else if (!built) {
    totals.failed++
    summary.push('FAIL  e2e: skipped because the build failed')
  } else {
    const out = join(reports, 'playwright.json')
    const { ok, secs } = run('e2e (playwright)', 'npx', ['playwright', 'test', '--reporter=list,json'], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: out,
    })
    addCounts('e2e (playwright)', ok, secs, readPlaywright(out))
  }
}

console.log('\n=== summary')
for (const line of summary) console.log(line)
const skippedPart = totals.skipped ? `, ${totals.skipped} skipped` : ''
console.log(`${totals.passed} passed, ${totals.failed} failed${skippedPart}`)
process.exit(totals.failed ? 1 : 0)

function addCounts(label, ok, secs, counts) {
  if (!counts) {
    totals.failed++
    summary.push(`FAIL  ${label}: no report produced (${secs}s)`)
    return
  }
  totals.passed += counts.passed
  totals.failed += counts.failed
  totals.skipped += counts.skipped
  // A runner that exits non-zero with no failed test (e.g. a crashed worker) still fails the run.
  if (!ok && counts.failed === 0) totals.failed++
  summary.push(
    `${ok ? 'PASS' : 'FAIL'}  ${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (${secs}s)`,
  )
}

function readVitest(file) {
  if (!existsSync(file)) return undefined
  const j = JSON.parse(readFileSync(file, 'utf8'))
  return {
    passed: j.numPassedTests ?? 0,
    // a file that fails to load has no failed test but a failed suite: count it once
    failed: j.numFailedTests || j.numFailedTestSuites || 0,
    skipped: (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0),
  }
}

function readPlaywright(file) {
  if (!existsSync(file)) return undefined
  const s = JSON.parse(readFileSync(file, 'utf8')).stats ?? {}
  return { passed: (s.expected ?? 0) + (s.flaky ?? 0), failed: s.unexpected ?? 0, skipped: s.skipped ?? 0 }
}
