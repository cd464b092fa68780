/** Google Identity Services script (spec section 2: Google sign-in button on the login screen). */
const gsiScriptUrl = 'https://accounts.google.com/gsi/client';

/** The part of `google.accounts.id` this app uses. */
export interface GoogleAccountsId {
  initialize: (config: {
    client_id: string;
    callback: (response: { credential?: string }) => void;
    ux_mode?: 'popup' | 'redirect';
    auto_select?: boolean;
    cancel_on_tap_outside?: boolean;
  }) => void;
  renderButton: (
    parent: HTMLElement,
    options: {
      type?: 'standard' | 'icon';
      theme?: 'outline' | 'filled_blue' | 'filled_black';
      size?: 'large' | 'medium' | 'small';
      text?: 'signin_with' | 'signup_with' | 'continue_with' | 'signin';
      shape?: 'rectangular' | 'pill' | 'circle' | 'square';
      logo_alignment?: 'left' | 'center';
      width?: number;
    },
  ) => void;
}

interface GoogleWindow {
  google?: { accounts?: { id?: GoogleAccountsId } };
}

const currentGsi = (): GoogleAccountsId | undefined => (window as GoogleWindow).google?.accounts?.id;

let loading: Promise<GoogleAccountsId> | null = null;

/** Loads the GIS script once per page; rejects when it cannot be loaded (offline, blocked). */
export function loadGoogleIdentity(): Promise<GoogleAccountsId> {
  const existing = currentGsi();
  if (existing) {
    return Promise.resolve(existing);
  }
  loading ??= new Promise<GoogleAccountsId>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = gsiScriptUrl;
    script.async = true;
    script.defer = true;
    script.onload = () => {
      const gsi = currentGsi();
      if (gsi) {
        resolve(gsi);
      } else {
        reject(new Error('Google Identity Services did not initialise'));
      }
    };
    script.onerror = () => {
      script.remove();
      reject(new Error('Google Identity Services could not be loaded'));
    };
    document.head.appendChild(script);
  }).catch((error: unknown) => {
    // Allow a later attempt (for example once back online).
    loading = null;
    throw error;
  });
  return loading;
}
