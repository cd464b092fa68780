import { useCallback, useEffect, useRef, useState } from 'react';
import { useWorkspace } from '../sync/sync-context';
import { readDraft, restoreDraft, saveDraft, saveDraftBeforeUnload, withRestored } from './drafts';

/** A pause in typing this long writes the draft: a write per keystroke would be wasted work. */
export const draftSaveDelayMs = 300;

/** What a send took from the box, and how to give it back if the send fails. */
export interface TakenDraft {
  text: string;
  /** Puts the text back before whatever was typed since; into the stored draft if the box is gone. */
  putBack: () => void;
}

/** One composer's text, kept in IndexedDB under its draft key (`draftKeys`). */
export interface Draft {
  /** What the box holds. */
  text: string;
  /** The person typed: shown at once, written once typing pauses (or the box goes away, or the page hides). */
  change: (text: string) => void;
  /** A send takes the text: the box empties and the stored draft is forgotten, both at once. */
  take: () => TakenDraft;
}

const logFailure = (error: unknown) => console.error('Saving the draft failed', error);

/**
 * The unsent text of the composer under `key`: read from IndexedDB when the composer opens, saved as
 * the person types, so it survives switching conversations, a reload and a closed window.
 */
export function useDraft(key: string): Draft {
  const { db } = useWorkspace();
  const [state, setState] = useState({ key, text: '' });
  // A new key starts empty until its own draft is read.
  if (state.key !== key) setState({ key, text: '' });
  const text = state.key === key ? state.text : '';

  // The box's text as of the last change, for callbacks that run before the next render.
  const latest = useRef({ key, text: '' });
  const unsaved = useRef<{ key: string; text: string } | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const mounted = useRef(false);

  const flush = useCallback(() => {
    window.clearTimeout(timer.current);
    const pending = unsaved.current;
    unsaved.current = null;
    if (pending) saveDraft(db, pending.key, pending.text).catch(logFailure);
  }, [db]);
  const flushBeforeUnload = useCallback(() => {
    window.clearTimeout(timer.current);
    const pending = unsaved.current;
    unsaved.current = null;
    if (!pending) return;
    try {
      saveDraftBeforeUnload(db, pending.key, pending.text);
    } catch (error) {
      logFailure(error);
    }
  }, [db]);

  const show = useCallback(
    (next: string, save: 'later' | 'now') => {
      latest.current = { key, text: next };
      unsaved.current = { key, text: next };
      setState({ key, text: next });
      if (save === 'now') {
        flush();
        return;
      }
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(flush, draftSaveDelayMs);
    },
    [key, flush],
  );

  useEffect(() => {
    mounted.current = true;
    let current = true;
    if (latest.current.key !== key) latest.current = { key, text: '' };
    readDraft(db, key)
      .then((stored) => {
        if (!current || stored === '') return;
        // Whatever was typed in the few milliseconds before the read answered follows the stored text.
        const typed = latest.current.key === key ? latest.current.text : '';
        if (typed === '') {
          latest.current = { key, text: stored };
          setState({ key, text: stored });
        } else show(stored + typed, 'now');
      })
      .catch((error: unknown) => console.error('Reading the draft failed', error));
    // A reload, a closed window or an app sent to the background may never run the timer.
    const handleHide = () => {
      if (document.visibilityState === 'hidden') flushBeforeUnload();
    };
    window.addEventListener('pagehide', flushBeforeUnload);
    document.addEventListener('visibilitychange', handleHide);
    return () => {
      current = false;
      mounted.current = false;
      window.removeEventListener('pagehide', flushBeforeUnload);
      document.removeEventListener('visibilitychange', handleHide);
      flush();
    };
  }, [db, key, flush, flushBeforeUnload, show]);

  const take = useCallback((): TakenDraft => {
    const taken = latest.current.key === key ? latest.current.text : '';
    show('', 'now');
    return {
      text: taken,
      putBack: () => {
        if (mounted.current && latest.current.key === key) show(withRestored(taken, latest.current.text), 'now');
        else restoreDraft(db, key, taken).catch(logFailure);
      },
    };
  }, [db, key, show]);

  return { text, change: useCallback((next: string) => show(next, 'later'), [show]), take };
}
