#!/usr/bin/env node
// `loopdesk` / `npx loopdesk`: runs the TypeScript CLI through tsx's loader (no build step needed).
// `gateway run` may start itself once more with V8's worker pool sized to the machine (src/cli/v8-pool.ts).
import { fileURLToPath } from 'node:url'
import { register } from 'tsx/esm/api'

register()
const { relaunchIfWanted } = await import(new URL('../src/cli/v8-pool.ts', import.meta.url).href)
const relaunched = relaunchIfWanted(fileURLToPath(import.meta.url), process.argv.slice(2))
if (relaunched) {
  process.exitCode = await relaunched
} else {
  const { cliMain } = await import(new URL('../src/cli/main.ts', import.meta.url).href)
  cliMain()
}
