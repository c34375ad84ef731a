#!/usr/bin/env node
// `loopdesk` / `npx loopdesk`: runs the TypeScript CLI through tsx's loader (no build step needed).
import { register } from 'tsx/esm/api'

register()
const { cliMain } = await import(new URL('../src/cli/main.ts', import.meta.url).href)
cliMain()
