/** One problem found in loopdesk.json: `path` is dotted (`agents.list[0].id`), '' for the whole file. */
export interface ConfigIssue {
  path: string
  message: string
  /** for syntax errors: 1-based position in the file */
  line?: number
  column?: number
}
