/** The backend over HTTP, for the app served by `tickscope serve`. */
import type { AppInfo, BackendApi, ChartRequest, ConnectionInfo, ExportResult, ImportPreview, ImportReportInfo, PageResponse, QueryProgress, RunResponse } from '../../../engine/contract';

function token(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="tickscope-token"]')?.content ?? '';
}

async function request<T>(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(path, {
    ...init,
    headers: { 'x-tickscope-token': token(), ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
  });
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = (await res.json()) as { error?: { ai?: string } };
      if (body.error?.ai) message = body.error.ai;
    } catch {
      // not JSON: keep the status line
    }
    throw new Error(message);
  }
  return res as Response & { json(): Promise<T> };
}

const json = async <T>(path: string, init?: RequestInit): Promise<T> => (await request<T>(path, init)).json() as Promise<T>;

/** A BackendApi talking to the server that served this page. */
export function httpBackend(): BackendApi {
  return {
    info: () => json<AppInfo>('app/api/info'),
    // tickscope serve answers only once its engine is ready
    startup: () => Promise.resolve(null),
    run: (operation, args, queryId) => json<RunResponse>('app/api/run', { method: 'POST', body: JSON.stringify({ operation, args, ...(queryId ? { queryId } : {}) }) }),
    progress: (queryId) => json<QueryProgress | null>(`app/api/queries/${encodeURIComponent(queryId)}`),
    cancel: (queryId) => json<boolean>(`app/api/queries/${encodeURIComponent(queryId)}/cancel`, { method: 'POST', body: '{}' }),
    page: (resultId, offset, limit, form) =>
      json<PageResponse>(`app/api/results/${encodeURIComponent(resultId)}/page?offset=${offset}&limit=${limit}${form && form !== 'grid' ? `&form=${form}` : ''}`),
    sort: (resultId, sortCols) => json<RunResponse>(`app/api/results/${encodeURIComponent(resultId)}/sort`, { method: 'POST', body: JSON.stringify({ sortCols }) }),
    chart: async (req: ChartRequest) => {
      const { resultId, ...body } = req;
      const res = await request(`app/api/results/${encodeURIComponent(resultId)}/chart`, { method: 'POST', body: JSON.stringify(body) });
      return new Uint8Array(await res.arrayBuffer());
    },
    table: async (resultId) => {
      const res = await request(`app/api/results/${encodeURIComponent(resultId)}/arrow`);
      return new Uint8Array(await res.arrayBuffer());
    },
    identifiers: (assembly, table) =>
      json<string[]>(`app/api/identifiers?assembly=${encodeURIComponent(assembly)}&table=${encodeURIComponent(table)}`),
    connections: () => json<ConnectionInfo[]>('app/api/connections'),
    addConnection: (spec) => json<ConnectionInfo[]>('app/api/connections', { method: 'POST', body: JSON.stringify(spec) }),
    useConnection: (id) => json<ConnectionInfo[]>(`app/api/connections/${encodeURIComponent(id)}/use`, { method: 'POST', body: '{}' }),
    removeConnection: (id) => json<ConnectionInfo[]>(`app/api/connections/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    openDatabase: (spec) => json<ConnectionInfo[]>('app/api/databases', { method: 'POST', body: JSON.stringify(spec) }),
    closeDatabase: (name) => json<ConnectionInfo[]>(`app/api/databases/${encodeURIComponent(name)}`, { method: 'DELETE' }),
    importPreview: (req) => json<ImportPreview>('app/api/import/preview', { method: 'POST', body: JSON.stringify(req) }),
    importFiles: (req, queryId) => json<ImportReportInfo>('app/api/import', { method: 'POST', body: JSON.stringify({ ...req, ...(queryId ? { queryId } : {}) }) }),
    exportCsv: async (resultId, suggestedName, format = 'csv', exportId): Promise<ExportResult> => {
      // A plain link download: the browser streams the file to disk without holding it in the page.
      const a = document.createElement('a');
      a.href = `app/api/results/${encodeURIComponent(resultId)}/export/${format}?token=${encodeURIComponent(token())}&name=${encodeURIComponent(suggestedName)}${exportId ? `&exportId=${encodeURIComponent(exportId)}` : ''}`;
      a.download = suggestedName;
      document.body.appendChild(a);
      a.click();
      a.remove();
      return { saved: true };
    },
  };
}

/** Where an uploaded file went (engine/service/uploads.ts): the folder to import, and its id for the next file. */
export interface UploadedFile {
  readonly upload: string;
  readonly folder: string;
  readonly path: string;
  readonly bytes: number;
}

/**
 * Sends one file the page holds (the browser's file picker or a drop) to `tickscope serve`, which keeps
 * it under an upload folder at its relative path; `upload` (the first answer's) puts the next in the same folder.
 */
export function uploadImportFile(file: Blob, relPath: string, upload?: string): Promise<UploadedFile> {
  return json<UploadedFile>('app/api/import/files', {
    method: 'POST',
    body: file,
    headers: { 'content-type': 'application/octet-stream', 'x-tickscope-path': encodeURIComponent(relPath), ...(upload ? { 'x-tickscope-upload': upload } : {}) },
  });
}
