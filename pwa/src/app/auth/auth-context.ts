import { createContext } from 'react';
import type { User } from '@office/sync-protocol';

/** Outcome of a sign-in call: the message is the spec's sentence (section 8), ready for the banner. */
export type AuthResult = { ok: true } | { ok: false; message: string };

export interface AuthContextValue {
  /** The signed-in user, or null when signed out (and while `passwordChangeFor` must choose a new password). */
  user: User | null;
  /**
   * Who signed in with a one-time code and must choose a new password before anything else: the server refuses
   * every other call of theirs, so nothing of the workspace opens until `choosePassword` succeeds.
   */
  passwordChangeFor: User | null;
  /** Sets the new password of `passwordChangeFor`; on success they are signed in as usual. Online only. */
  choosePassword: (newPassword: string) => Promise<AuthResult>;
  /** The bearer token of the session, or null. */
  token: string | null;
  /** True until the stored session has been checked on start. */
  loading: boolean;
  /** Increases whenever the current user's avatar changed (event `avatarUpdated`); use it to bust caches. */
  avatarVersion: number;
  login: (email: string, password: string) => Promise<AuthResult>;
  /** Creates an account; `invitation` is the token of the invitation link the sign-up screen was opened from. */
  register: (name: string, email: string, password: string, invitation?: string | null) => Promise<AuthResult>;
  googleLogin: (tokenId: string) => Promise<AuthResult>;
  /** Offline: opens the account that last signed in with Google on this device (it has no password). */
  continueOffline: (userId: string) => Promise<AuthResult>;
  /** Ends the session: clears the user, the token and the session flag. */
  logout: () => void;
  /** Replaces the current user in memory and in storage (password stripped). */
  setUser: (user: User) => void;
}

export const AuthContext = createContext<AuthContextValue | null>(null);
