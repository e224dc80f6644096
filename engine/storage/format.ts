/** The on-disk format version this engine reads and writes (docs/storage.md). */
export const STORAGE_FORMAT = 2;
