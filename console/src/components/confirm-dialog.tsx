/**
 * A modal question with a confirm and a cancel button (the native `<dialog>`, so focus is trapped
 * and Escape cancels), named by its title. Rendered only while open; used by every page that asks
 * before acting.
 */
import { useEffect, useRef, type ReactNode } from 'react';

export interface ConfirmDialogProps {
  /** The question; also the dialog's accessible name. */
  title: string;
  /** What happens on confirm, when the title alone does not say. */
  children?: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  /** Marks the confirm button as destructive. */
  danger?: boolean;
  busy?: boolean;
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  danger,
  busy,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      {children !== undefined && <div>{children}</div>}
      <div className="dialog-buttons">
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button
          type="button"
          className={danger ? 'danger' : 'primary'}
          disabled={busy}
          onClick={onConfirm}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
