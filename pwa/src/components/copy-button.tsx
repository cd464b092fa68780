import { useEffect, useState } from 'react';
import { Check, Copy } from 'lucide-react';
import { Button } from './button';
import styles from './copy-button.module.css';

/**
 * Copies `text` to the clipboard and says so for a moment ("Copied", announced politely). Where the clipboard is
 * refused (an insecure page, a denied permission) it says to copy by hand; the text stays on screen to select.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [outcome, setOutcome] = useState<'copied' | 'failed' | null>(null);
  useEffect(() => {
    if (outcome !== 'copied') return undefined;
    const timer = setTimeout(() => setOutcome(null), 2000);
    return () => clearTimeout(timer);
  }, [outcome]);

  const handleCopy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      setOutcome('copied');
    } catch {
      setOutcome('failed');
    }
  };

  return (
    <>
      <Button variant="secondary" size="small" onClick={() => void handleCopy()}>
        {outcome === 'copied' ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
        {outcome === 'copied' ? 'Copied' : label}
      </Button>
      <span role="status" className={styles.srOnly}>
        {outcome === 'copied'
          ? 'Copied to the clipboard'
          : outcome === 'failed'
            ? 'Could not copy: select it and copy it'
            : ''}
      </span>
    </>
  );
}
