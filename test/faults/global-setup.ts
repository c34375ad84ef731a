// Builds the CLI bundle the faults suite runs as a child process (see support/cli-bundle.ts), once per run.
import { buildCliBundle } from './support/cli-bundle'

export default async function setup(): Promise<void> {
  await buildCliBundle()
}
