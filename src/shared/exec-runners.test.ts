import { describe, expect, it } from 'vitest'
import { workspaceRunner } from './exec-runners'

describe('workspaceRunner', () => {
  it('flags entries that run code the agent can write', () => {
    for (const e of [
      'npm test', 'npm run build*', 'npm*', 'yarn test', 'yarn build', 'pnpm run lint', 'npx vitest*', 'make', 'make*', 'make test',
      'pytest', 'pytest -q*', 'python -m pytest', 'cargo test', 'cargo build --release', 'go test ./...', 'go run .', 'gradle build',
      './gradlew test', 'mvn test', 'rake', 'just build', 'tox', 'node scripts/build.js', 'python3 tools/gen.py', 'python *', './run.sh',
      'CI=1 npm test', '/usr/bin/make check', '*',
    ]) {
      expect(workspaceRunner(e), e).toBeDefined()
    }
  })

  it('leaves commands that only read or run fixed code alone', () => {
    for (const e of ['git status*', 'ls*', 'cat README.md', 'npm ls', 'npm view react', 'yarn why react', 'go version', 'go build ./...', 'python --version', 'node -e "1"', 'grep -rn TODO*', 'npm', 'pwd']) {
      expect(workspaceRunner(e), e).toBeUndefined()
    }
  })

  it('names what is run', () => {
    expect(workspaceRunner('npm test')).toBe('package.json scripts')
    expect(workspaceRunner('make')).toBe('the Makefile')
    expect(workspaceRunner('pytest')).toBe('conftest.py and the tests')
  })
})
