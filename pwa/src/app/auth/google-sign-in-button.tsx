import { useEffect, useRef, useState } from 'react';
import { fetchServerConfig } from '../../api/auth-api';
import { loadGoogleIdentity } from './google-identity';
import styles from './google-sign-in-button.module.css';

interface GoogleSignInButtonProps {
  /** Receives the ID token ("credential") Google returns, or null when Google sent none. */
  onCredential: (credential: string | null) => void;
}

/**
 * Google's own sign-in button, shown only when the server has a Google client id
 * (GET /api/config). Offline, or without a client id, nothing renders.
 */
export function GoogleSignInButton({ onCredential }: GoogleSignInButtonProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const [clientId, setClientId] = useState<string | null>(null);
  const [rendered, setRendered] = useState(false);
  // Google keeps the first callback; route it through a ref so it always calls the latest handler.
  const handlerRef = useRef(onCredential);
  useEffect(() => {
    handlerRef.current = onCredential;
  });

  useEffect(() => {
    let active = true;
    fetchServerConfig()
      .then((config) => {
        if (active) {
          setClientId(config.googleClientId);
        }
      })
      .catch((error: unknown) => console.warn('Could not load the server configuration', error));
    return () => {
      active = false;
    };
  }, []);

  useEffect(() => {
    if (clientId === null) {
      return undefined;
    }
    let active = true;
    loadGoogleIdentity()
      .then((gsi) => {
        const container = containerRef.current;
        if (!active || container === null) {
          return;
        }
        gsi.initialize({
          client_id: clientId,
          callback: (response) => handlerRef.current(response.credential ?? null),
          ux_mode: 'popup',
        });
        container.replaceChildren();
        gsi.renderButton(container, {
          type: 'standard',
          theme: 'outline',
          size: 'large',
          text: 'signin_with',
          shape: 'rectangular',
          logo_alignment: 'center',
          width: Math.min(400, Math.max(200, Math.round(container.clientWidth))),
        });
        setRendered(true);
      })
      .catch((error: unknown) => console.warn('Google sign-in is unavailable', error));
    return () => {
      active = false;
    };
  }, [clientId]);

  if (clientId === null) {
    return null;
  }
  return (
    <div className={styles.wrapper}>
      {rendered && (
        <div className={styles.divider} aria-hidden="true">
          <span>or</span>
        </div>
      )}
      <div
        ref={containerRef}
        className={`${styles.container} ${rendered ? styles.rendered : ''}`}
        data-testid="google-sign-in"
      />
    </div>
  );
}
