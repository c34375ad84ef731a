// A model can write HEAD, config, objects/ and refs/ into the workspace root (write refuses only `.git`).
// Git then takes the folder itself for a bare repository, and an allow-listed or harmless-looking
// `git status` there reads that `config` — `core.fsmonitor`, `core.pager`, aliases… run any command
// without an approval. `safe.bareRepository=explicit` (git ≥ 2.38; older ones ignore it) makes git use a
// bare repository only when named (`--git-dir`, GIT_DIR), so an ordinary repo's `.git` is unaffected.
// It must come from the command line or the environment: git ignores it in a repository's own config.

/** `env` plus one GIT_CONFIG_COUNT entry setting safe.bareRepository=explicit, after any the user set. */
export function withGitBareRepoGuard(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const given = Number(env.GIT_CONFIG_COUNT)
  // a count git would reject ("bogus count") is replaced: ours is then the only entry
  const n = Number.isInteger(given) && given >= 0 ? given : 0
  return {
    ...env,
    GIT_CONFIG_COUNT: String(n + 1),
    [`GIT_CONFIG_KEY_${n}`]: 'safe.bareRepository',
    [`GIT_CONFIG_VALUE_${n}`]: 'explicit',
  }
}
