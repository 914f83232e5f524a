/**
 * Choosing documents to upload: drop them on the zone, or pick them with the file input (the
 * keyboard and screen-reader way; the zone only adds dropping).
 */
import { useId, useState, type DragEvent } from 'react';

/** The extensions the indexer reads (the server refuses others with BW_ERR_DOCUMENT_UNSUPPORTED). */
export const DOCUMENT_ACCEPT = '.pdf,.xlsx,.xls,.ods,.csv';

export interface UploadDropProps {
  /** The input's label. */
  label: string;
  disabled?: boolean;
  onFiles: (files: File[]) => void;
}

export function UploadDrop({ label, disabled = false, onFiles }: UploadDropProps) {
  const inputId = useId();
  const [dragging, setDragging] = useState(false);
  const onDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (disabled) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    if (disabled) return;
    const files = [...event.dataTransfer.files];
    if (files.length > 0) onFiles(files);
  };
  return (
    <div
      className={`kn-drop${dragging ? ' kn-drop-active' : ''}${disabled ? ' kn-drop-disabled' : ''}`}
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <p aria-hidden="true">Drop PDF or spreadsheet files here, or</p>
      <label htmlFor={inputId}>{label}</label>{' '}
      <input
        id={inputId}
        type="file"
        multiple
        accept={DOCUMENT_ACCEPT}
        disabled={disabled}
        onChange={(event) => {
          const files = [...(event.currentTarget.files ?? [])];
          // Cleared so choosing the same file again (after fixing a refusal) fires again.
          event.currentTarget.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
    </div>
  );
}
