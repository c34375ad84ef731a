// Block streaming (partial replies at text_end / message_end, code-fence safe) and reasoning delivery.
export { BlockChunker, DEFAULT_BLOCK_MAX_CHARS, DEFAULT_BLOCK_MIN_CHARS, type BlockBreak, type BlockChunkerOptions } from './chunker'
export { BlockStreamer, type BlockStreamerOptions } from './block-streamer'
export { ReasoningStream, type ReasoningMode, type ReasoningStreamOptions } from './reasoning'
export { findFences, fenceAt, type FenceSpan } from './fences'
