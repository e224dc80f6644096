/** Files dropped on Import…'s drop zone, folders walked, each with its path relative to what was dropped (`aapl/20131008_trade.csv`). */

/** A file the page holds and its relative path. */
export interface PickedFile {
  readonly file: File;
  readonly path: string;
}

/** The names of files an import reads. */
export const IMPORTABLE = /\.(csv|parquet|arrow|arrows|ipc|feather)$/i;

function entries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  // readEntries answers in batches until an empty one
  return new Promise((resolve, reject) => {
    const next = (): void =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

async function walk(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, path });
  } else if (entry.isDirectory) {
    for (const e of await entries(entry as FileSystemDirectoryEntry)) await walk(e, path, out);
  }
}

/** The files of a drop (folders with their files, in their order), or its plain files when entries are not offered. */
export async function collectDropped(data: DataTransfer): Promise<PickedFile[]> {
  const roots = [...data.items].map((i) => i.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => e !== null && e !== undefined);
  if (roots.length === 0) return [...data.files].map((file) => ({ file, path: file.name }));
  const out: PickedFile[] = [];
  for (const r of roots) await walk(r, '', out);
  return out;
}
