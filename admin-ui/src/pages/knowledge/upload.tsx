import { useRef, useState } from 'preact/hooks';
import { uploadFile } from '../../api.js';
import type { Source } from '../../types.js';
import { Notice, ProgressBar, errorText } from '../../ui.js';

const ACCEPT = '.pdf,.docx,.txt,.xlsx,.csv';
const ALLOWED = /\.(pdf|docx|txt|xlsx|csv)$/i;
const MAX_BYTES = 100 * 1024 * 1024;

interface Upload {
  key: number;
  name: string;
  progress: number;
  error: string | null;
}

let uploadSeq = 0;

export function Dropzone({ agentId, onUploaded }: { agentId: string; onUploaded: () => void }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const update = (key: number, patch: Partial<Upload>) =>
    setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...patch } : u)));

  const start = async (files: File[]) => {
    // one at a time: the server ingests one by one anyway, and each bar then means something
    for (const file of files) {
      const key = ++uploadSeq;
      setUploads((list) => [...list, { key, name: file.name, progress: 0, error: null }]);
      if (!ALLOWED.test(file.name)) {
        update(key, { error: 'Only PDF, Word (.docx), Excel (.xlsx), CSV and text files can be added.' });
        continue;
      }
      if (file.size > MAX_BYTES) {
        update(key, { error: 'The file is larger than 100 MB.' });
        continue;
      }
      try {
        await uploadFile<Source>(`/api/sources/chatbot/${encodeURIComponent(agentId)}/file`, file, (p) =>
          update(key, { progress: p }),
        ).promise;
        setUploads((list) => list.filter((u) => u.key !== key));
        onUploaded();
      } catch (err) {
        update(key, { error: errorText(err) });
      }
    }
  };

  return (
    <div class="stack">
      <div
        class={over ? 'dropzone over' : 'dropzone'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          void start(Array.from(e.dataTransfer?.files ?? []));
        }}
      >
        <p>
          <strong>Drop files here</strong> or{' '}
          <button type="button" class="link-button" onClick={() => input.current?.click()}>
            choose files
          </button>
        </p>
        <p class="muted small">PDF, DOCX, XLSX, CSV or TXT, up to 100 MB each</p>
        <input
          ref={input}
          type="file"
          accept={ACCEPT}
          multiple
          class="offscreen"
          aria-label="Upload files"
          onChange={(e) => {
            const files = Array.from(e.currentTarget.files ?? []);
            e.currentTarget.value = '';
            void start(files);
          }}
        />
      </div>
      {uploads.map((u) => (
        <div key={u.key} class="upload-row">
          <span class="upload-name">{u.name}</span>
          {u.error ? (
            <>
              <Notice kind="error">{u.error}</Notice>
              <button
                type="button"
                class="btn btn-small"
                onClick={() => setUploads((l) => l.filter((x) => x.key !== u.key))}
              >
                Dismiss
              </button>
            </>
          ) : (
            <>
              <ProgressBar value={u.progress} label={`Uploading ${u.name}`} />
              <span class="small muted">{Math.round(u.progress * 100)}%</span>
            </>
          )}
        </div>
      ))}
    </div>
  );
}
