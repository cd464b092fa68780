import { useCallback, useEffect, useRef, useState } from 'react';
import { useWorkspace } from '../sync/sync-context';
import { draftWriterFor } from './draft-writer';
import { openDraft, restoreDraft, withRestored } from './drafts';

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
  /** The person typed: shown at once, stored once typing pauses (or the box closes, or the page goes). */
  change: (text: string) => void;
  /** A send takes the text: the box empties and the stored draft is forgotten, both at once. */
  take: () => TakenDraft;
}

/**
 * The unsent text of the composer under `key`: read when the composer opens, stored as the person
 * types, so it survives switching conversations, a reload and a closed window.
 */
export function useDraft(key: string): Draft {
  const { db, ctx } = useWorkspace();
  const userId = ctx.userId;
  const [state, setState] = useState({ key, text: '' });
  // A new key starts empty until its own draft is read.
  if (state.key !== key) setState({ key, text: '' });
  const text = state.key === key ? state.text : '';

  // The box's text as of the last change, for callbacks that run before the next render.
  const latest = useRef({ key, text: '' });
  const mounted = useRef(false);

  const show = useCallback(
    (next: string, store: 'later' | 'now') => {
      latest.current = { key, text: next };
      setState({ key, text: next });
      const writer = draftWriterFor(db, userId);
      if (store === 'now') writer.now(key, next);
      else writer.later(key, next);
    },
    [db, userId, key],
  );

  useEffect(() => {
    mounted.current = true;
    let current = true;
    if (latest.current.key !== key) latest.current = { key, text: '' };
    openDraft(db, localStorage, userId, key)
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
    return () => {
      current = false;
      mounted.current = false;
      draftWriterFor(db, userId).flush(key);
    };
  }, [db, userId, key, show]);

  const take = useCallback((): TakenDraft => {
    const taken = latest.current.key === key ? latest.current.text : '';
    show('', 'now');
    return {
      text: taken,
      putBack: () => {
        if (mounted.current && latest.current.key === key) show(withRestored(taken, latest.current.text), 'now');
        else restoreDraft(db, key, taken).catch((error: unknown) => console.error('Saving the draft failed', error));
      },
    };
  }, [db, key, show]);

  return { text, change: useCallback((next: string) => show(next, 'later'), [show]), take };
}
