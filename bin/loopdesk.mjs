#!/usr/bin/env node
// `loopdesk` / `npx loopdesk`: the CLI (src/cli/main.ts), from a cached bundle or through tsx
// (cli-bundle.mjs). `gateway run` may start itself once more with V8's worker pool sized to the machine
// (src/cli/v8-pool.ts).
import { fileURLToPath } from 'node:url'
import { loadCli } from './cli-bundle.mjs'

const cli = await loadCli()
const relaunched = cli.relaunchIfWanted(fileURLToPath(import.meta.url), process.argv.slice(2))
if (relaunched) process.exitCode = await relaunched
else cli.cliMain()
