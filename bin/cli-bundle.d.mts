// Types of cli-bundle.mjs (plain JavaScript: it runs before any TypeScript loader), for the test suites.
export declare const ROOT: string
export declare const CACHE_DIR: string
/** the CLI module (src/cli/main.ts), from the cached bundle or through tsx */
export declare function loadCli(): Promise<typeof import('../src/cli/main')>
/** entry file of the bundle for the current sources (it may not be built yet) */
export declare function bundleEntry(): string
/** entry file of the bundle for the current sources, built when missing */
export declare function cachedBundle(): Promise<string>
/** the gateway's socket-thread worker bundled alone for the current sources, built when missing (in `cacheDir`) */
export declare function cachedWorker(cacheDir?: string): Promise<string>
export declare function sourceStamp(): string
/** esbuild's options for the socket thread's worker (packages inlined), written into `outdir` */
export declare function workerBuild(outdir: string, entry?: string): import('esbuild').BuildOptions
