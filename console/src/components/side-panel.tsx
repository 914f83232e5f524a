/** A panel of the editor's right-hand side: a heading, a button that closes it, its content. */
import { useId, type ReactNode } from 'react';

export interface SidePanelProps {
  title: string;
  /** The close button's words, naming what it closes ("Close versions"). */
  closeLabel: string;
  onClose: () => void;
  className?: string;
  children: ReactNode;
}

export function SidePanel({ title, closeLabel, onClose, className, children }: SidePanelProps) {
  const id = useId();
  return (
    <section aria-labelledby={id} className={className}>
      <div className="row spread">
        <h2 id={id}>{title}</h2>
        <button type="button" onClick={onClose}>
          {closeLabel}
        </button>
      </div>
      {children}
    </section>
  );
}
