/** A modal question (native <dialog>: focus moves into it, Escape cancels). */
import { useEffect, useRef } from 'react';

export interface ConfirmDialogProps {
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ question, confirmLabel, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="ops-confirm-q" onCancel={onCancel} className="ops-dialog">
      <p id="ops-confirm-q">{question}</p>
      <p>
        <button type="button" onClick={onConfirm}>
          {confirmLabel}
        </button>{' '}
        <button type="button" autoFocus onClick={onCancel}>
          Cancel
        </button>
      </p>
    </dialog>
  );
}
