// Exec allow-list entries that run code from the workspace. Allow-listing `npm test` or `make` does not
// allow one fixed program: it allows whatever the agent writes into package.json, the Makefile or
// conftest.py first — as good as running any command without asking. Settings and `loopdesk config set`
// warn about such entries; nothing is refused (the user may mean it, in a workspace they control).

interface Runner {
  /** program names (basename, lower case) */
  programs: readonly string[]
  /** subcommands that run workspace code; undefined = every use does */
  subcommands?: readonly string[]
  /** what it runs, for the warning */
  runs: string
}

const RUNNERS: readonly Runner[] = [
  { programs: ['npm'], subcommands: ['run', 'run-script', 'rum', 'urn', 'test', 't', 'tst', 'start', 'restart', 'stop', 'exec', 'x', 'install', 'i', 'ci'], runs: 'package.json scripts' },
  { programs: ['yarn', 'pnpm', 'bun'], subcommands: ['run', 'test', 't', 'start', 'exec', 'dlx', 'install', 'i', 'x'], runs: 'package.json scripts' },
  { programs: ['npx', 'pnpx', 'bunx'], runs: 'programs from node_modules/.bin or the registry' },
  { programs: ['make', 'gmake'], runs: 'the Makefile' },
  { programs: ['just'], runs: 'the justfile' },
  { programs: ['rake'], runs: 'the Rakefile' },
  { programs: ['pytest', 'py.test'], runs: 'conftest.py and the tests' },
  { programs: ['tox', 'nox'], runs: 'tox.ini / noxfile.py' },
  { programs: ['cargo'], runs: 'build.rs, the tests and the crate' },
  { programs: ['go'], subcommands: ['test', 'run', 'generate'], runs: 'the Go code (and go:generate lines)' },
  { programs: ['gradle', 'gradlew'], runs: 'build.gradle and the gradle wrapper' },
  { programs: ['mvn', 'mvnw'], runs: 'pom.xml and its plugins' },
]

/** interpreters: running a file (or a module such as pytest) runs workspace code */
const INTERPRETERS = new Set(['python', 'python3', 'python2', 'py', 'node', 'deno', 'ruby', 'perl', 'php', 'bash', 'sh', 'zsh', 'tsx', 'ts-node'])

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1).toLowerCase()

/**
 * Why an allow-list entry ("npm test", "make*", "python scripts/x.py") runs code the agent can write, or
 * undefined when it does not look like it. A prefix entry (`…*`) also counts when what it leaves open
 * could name such a runner (`npm*`, `python *`).
 */
export function workspaceRunner(entry: string): string | undefined {
  let text = entry.trim()
  if (text === '*') return 'every command'
  const prefix = text.endsWith('*')
  if (prefix) text = text.slice(0, -1)
  const words = text.split(/\s+/).filter(Boolean)
  while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words.shift() // FOO=1 make
  if (words[0] === 'sudo' || words[0] === 'env') words.shift()
  if (!words.length) return undefined
  const first = words[0]
  const program = basename(first)
  // ./build.sh, scripts/run: a program in the workspace itself
  if ((first.startsWith('./') || first.startsWith('../')) && !['gradlew', 'mvnw'].includes(program)) return 'a program in the workspace'
  for (const r of RUNNERS) {
    if (!r.programs.includes(program)) continue
    if (!r.subcommands) return r.runs
    const sub = words.slice(1).find((w) => !w.startsWith('-'))
    if (sub === undefined) return prefix ? r.runs : undefined // "npm*" leaves every subcommand open
    if (r.subcommands.includes(sub.toLowerCase())) return r.runs
    // yarn/pnpm/bun run a package.json script by its bare name too ("yarn build")
    if (program !== 'npm' && program !== 'go' && !['add', 'remove', 'why', 'info', 'list', 'ls', 'outdated', 'version', 'help', 'audit'].includes(sub.toLowerCase())) return r.runs
    return undefined
  }
  if (INTERPRETERS.has(program.replace(/[\d.]+$/, '')) || INTERPRETERS.has(program)) {
    const rest = words.slice(1)
    if (!rest.length) return prefix ? 'any script' : undefined
    const m = rest.indexOf('-m')
    if (m >= 0 && rest[m + 1]) return `the module ${rest[m + 1]} (e.g. pytest runs conftest.py)`
    if (rest.some((w) => w === '-c' || w === '-e' || w === '--eval')) return undefined // inline code, fixed by the entry
    const file = rest.find((w) => !w.startsWith('-'))
    if (file) return 'a script in the workspace'
    return prefix ? 'any script' : undefined
  }
  return undefined
}
