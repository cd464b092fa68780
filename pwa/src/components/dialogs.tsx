import {
  createContext,
  useCallback,
  useContext,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { Button } from './button';
import { Modal } from './modal';
import styles from './dialogs.module.css';

/** A question with two answers: the action (`confirmLabel`) or Cancel. */
export interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel: string;
  /** `danger` for an action that destroys something. */
  tone?: 'danger' | 'primary';
}

/** A failure the person acknowledges with OK. */
export interface AlertRequest {
  title: string;
  message: string;
}

/** The app's own replacements of the browser's confirm() and alert(): accessible dialogs that keep focus. */
export interface Dialogs {
  /** Resolves true when the person chose the action; false on Cancel, Escape, the close button or a click outside. */
  confirm: (request: ConfirmRequest) => Promise<boolean>;
  /** Resolves once the person closed it. */
  alert: (request: AlertRequest) => Promise<void>;
}

type Open =
  | { kind: 'confirm'; request: ConfirmRequest; answer: (confirmed: boolean) => void }
  | { kind: 'alert'; request: AlertRequest; answer: () => void };

const DialogsContext = createContext<Dialogs | null>(null);

/** Provides `useDialogs` to the app and shows its dialogs one at a time, over everything else. */
export function DialogsProvider({ children }: { children: ReactNode }) {
  const [queue, setQueue] = useState<Open[]>([]);
  const settle = useCallback((open: Open) => setQueue((waiting) => waiting.filter((item) => item !== open)), []);
  const dialogs = useMemo<Dialogs>(
    () => ({
      confirm: (request) =>
        new Promise<boolean>((resolve) => {
          const open: Open = {
            kind: 'confirm',
            request,
            answer: (confirmed) => {
              settle(open);
              resolve(confirmed);
            },
          };
          setQueue((waiting) => [...waiting, open]);
        }),
      alert: (request) =>
        new Promise<void>((resolve) => {
          const open: Open = {
            kind: 'alert',
            request,
            answer: () => {
              settle(open);
              resolve();
            },
          };
          setQueue((waiting) => [...waiting, open]);
        }),
    }),
    [settle],
  );
  const [current] = queue;
  return (
    <DialogsContext.Provider value={dialogs}>
      {children}
      {current?.kind === 'confirm' ? (
        <ConfirmDialog request={current.request} onAnswer={current.answer} />
      ) : current?.kind === 'alert' ? (
        <AlertDialog request={current.request} onClose={current.answer} />
      ) : null}
    </DialogsContext.Provider>
  );
}

/** The app's confirm and alert dialogs. */
export function useDialogs(): Dialogs {
  const dialogs = useContext(DialogsContext);
  if (!dialogs) throw new Error('useDialogs is used outside DialogsProvider');
  return dialogs;
}

/**
 * Moves focus to the button marked `data-initial-focus` once the dialog has taken it: the answer that keeps
 * things as they are (Cancel), so Enter right after opening never destroys anything.
 */
function useInitialFocus(): (element: HTMLDivElement | null) => void {
  const container = useRef<HTMLDivElement | null>(null);
  // A parent's layout effect runs after the Modal's, which focuses the dialog itself.
  useLayoutEffect(() => {
    container.current?.closest('[role="alertdialog"]')?.querySelector<HTMLElement>('[data-initial-focus]')?.focus();
  }, []);
  return useCallback((element) => {
    container.current = element;
  }, []);
}

/** The frame both share: an alertdialog named by its title and described by its message. */
function AppDialog({
  title,
  message,
  onClose,
  footer,
}: {
  title: string;
  message: string;
  onClose: () => void;
  footer: ReactNode;
}) {
  const messageId = useId();
  const focusRef = useInitialFocus();
  return (
    <Modal title={title} size="small" role="alertdialog" describedBy={messageId} onClose={onClose} footer={footer}>
      <p ref={focusRef} id={messageId} className={styles.message}>
        {message}
      </p>
    </Modal>
  );
}

export function ConfirmDialog({
  request,
  onAnswer,
}: {
  request: ConfirmRequest;
  onAnswer: (confirmed: boolean) => void;
}) {
  return (
    <AppDialog
      title={request.title}
      message={request.message}
      onClose={() => onAnswer(false)}
      footer={
        <>
          <Button variant="secondary" data-initial-focus="" onClick={() => onAnswer(false)}>
            Cancel
          </Button>
          <Button variant={request.tone ?? 'danger'} onClick={() => onAnswer(true)}>
            {request.confirmLabel}
          </Button>
        </>
      }
    />
  );
}

export function AlertDialog({ request, onClose }: { request: AlertRequest; onClose: () => void }) {
  return (
    <AppDialog
      title={request.title}
      message={request.message}
      onClose={onClose}
      footer={
        <Button data-initial-focus="" onClick={onClose}>
          OK
        </Button>
      }
    />
  );
}
