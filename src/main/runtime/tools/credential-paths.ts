// Where the user's own credentials usually live: the home folder's SSH and GnuPG keys and the cloud, container,
// package-registry and git hosts' logins a coding agent's machine tends to have. File tools treat each like one of
// Loopdesk's private folders: refused by path when the workspace holds it (a workspace that is the home folder),
// and a hard link to a file in it is refused wherever it is (linked-secrets.ts). Outside the workspace every path
// is refused anyway. An agent that needs one of them asks through `exec`, where the user approves the command.
// A fixed list, not a setting: a model's edit of loopdesk.json could otherwise lift it. Small folders and single
// files; one that does not exist costs one failed realpath.
import os from 'node:os'
import path from 'node:path'

export interface CredentialPath {
  /** relative to the home folder, '/'-separated (`xdg`: to the user's config folder) */
  rel: string
  /** under `$XDG_CONFIG_HOME` when that is set, and under ~/.config either way (the tools that honour it, and those that do not) */
  xdg?: boolean
  /** what the refusal calls it */
  label: string
}

export const CREDENTIAL_PATHS: readonly CredentialPath[] = [
  { rel: '.ssh', label: 'your SSH folder (~/.ssh)' },
  { rel: '.gnupg', label: 'your GnuPG folder (~/.gnupg)' },
  { rel: '.aws', label: 'your AWS credentials (~/.aws)' },
  { rel: 'gcloud', xdg: true, label: 'your Google Cloud credentials (~/.config/gcloud)' },
  { rel: '.azure', label: 'your Azure credentials (~/.azure)' },
  { rel: '.kube/config', label: 'your Kubernetes config (~/.kube/config)' },
  { rel: '.docker/config.json', label: 'your Docker registry logins (~/.docker/config.json)' },
  { rel: '.netrc', label: 'your netrc logins (~/.netrc)' },
  { rel: '.npmrc', label: 'your npm config and tokens (~/.npmrc)' },
  { rel: '.pypirc', label: 'your PyPI config and tokens (~/.pypirc)' },
  { rel: '.git-credentials', label: "git's stored credentials (~/.git-credentials)" },
  // credential-store's second file, read as the first is
  { rel: 'git/credentials', xdg: true, label: "git's stored credentials (~/.config/git/credentials)" },
  { rel: 'gh/hosts.yml', xdg: true, label: "the GitHub CLI's tokens (~/.config/gh/hosts.yml)" },
  { rel: '.cargo/credentials.toml', label: "Cargo's registry tokens (~/.cargo/credentials.toml)" },
  { rel: '.cargo/credentials', label: "Cargo's registry tokens (~/.cargo/credentials)" },
]

/** The credential locations under `home` (the current user's home folder unless given), as absolute paths. */
export function credentialPaths(home: string = os.homedir(), xdgConfig = process.env.XDG_CONFIG_HOME): Array<{ dir: string; label: string }> {
  const config = [path.join(home, '.config')]
  if (xdgConfig && path.isAbsolute(xdgConfig) && path.resolve(xdgConfig) !== config[0]) config.push(path.resolve(xdgConfig))
  return CREDENTIAL_PATHS.flatMap((c) =>
    (c.xdg ? config : [home]).map((base) => ({ dir: path.join(base, ...c.rel.split('/')), label: c.label })),
  )
}
