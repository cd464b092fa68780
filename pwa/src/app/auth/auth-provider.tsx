import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { AuthResponse, User } from '@office/sync-protocol';
import { isNetworkError, onPasswordChangeRequired, onUnauthorized } from '../../api/http';
import { fetchCurrentUser, googleLoginRequest, loginRequest, registerRequest } from '../../api/auth-api';
import { choosePasswordRequest } from '../../api/access-api';
import { AuthContext, type AuthContextValue, type AuthResult } from './auth-context';
import { authFailureMessage, authMessages, offlineSignInMessage } from './auth-messages';
import { avatarUpdatedEvent, avatarUpdatedUserId } from './avatar-events';
import {
  deviceAccountById,
  deviceAccountFor,
  forgetDeviceVerifier,
  rememberGoogleAccount,
  signInOffline,
  startRememberingPassword,
  updateDeviceAccount,
} from './device-accounts';
import { clearEndedSession, markSessionEnded } from './ended-session';
import {
  clearPasswordChangeRequired,
  clearPasswordWasReset,
  isPasswordChangeRequired,
  markPasswordChangeRequired,
  markPasswordWasReset,
} from './password-change';
import {
  clearStoredSession,
  readStoredSession,
  withoutPassword,
  writeStoredSession,
  writeStoredUser,
} from './session-storage';

interface AuthState {
  user: User | null;
  token: string | null;
  loading: boolean;
  /** The session was opened with a one-time code: only choosing a new password is open to it. */
  mustChoosePassword: boolean;
}

const signedOut: AuthState = { user: null, token: null, loading: false, mustChoosePassword: false };

/** Holds the session: restores it on start, signs in, signs out, and keeps the stored user fresh. */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>({ user: null, token: null, loading: true, mustChoosePassword: false });
  const [avatarVersion, setAvatarVersion] = useState(0);
  // The token of the session a background answer belongs to; a late answer after logout is dropped.
  const tokenRef = useRef<string | null>(null);

  const applySession = useCallback((user: User, token: string, mustChoosePassword = false) => {
    const clean = withoutPassword(user);
    writeStoredSession({ user: clean, token });
    clearEndedSession();
    clearPasswordWasReset();
    if (mustChoosePassword) markPasswordChangeRequired(clean.id);
    else clearPasswordChangeRequired();
    tokenRef.current = token;
    setState({ user: clean, token, loading: false, mustChoosePassword });
  }, []);

  const setUser = useCallback((user: User) => {
    const clean = withoutPassword(user);
    writeStoredUser(clean);
    setState((current) => ({ ...current, user: clean }));
    void updateDeviceAccount(clean.id, { user: clean });
  }, []);

  /** The one place a session ends: the Logout button and any 401 both come here. */
  const logout = useCallback(() => {
    clearStoredSession();
    clearPasswordChangeRequired();
    tokenRef.current = null;
    setState(signedOut);
  }, []);

  /** Re-reads the user from the server; failures (offline, timeout) are only logged. */
  const refreshUser = useCallback(async () => {
    const token = tokenRef.current;
    if (token === null) {
      return;
    }
    try {
      const { user } = await fetchCurrentUser();
      if (tokenRef.current === token) {
        setUser(user);
      }
    } catch (error) {
      // A 401 has already signed out through the HTTP client's handler.
      console.warn('Could not refresh the current user', error);
    }
  }, [setUser]);

  // Restore the stored session once on start, then refresh the user in the background.
  useEffect(() => {
    let active = true;
    void Promise.resolve()
      .then(readStoredSession)
      .then((session) => {
        if (!active) {
          return;
        }
        if (session === null) {
          setState(signedOut);
          return;
        }
        tokenRef.current = session.token;
        const mustChoosePassword = isPasswordChangeRequired(session.user.id);
        setState({ user: session.user, token: session.token, loading: false, mustChoosePassword });
        // The server refuses a session that must choose a password everything else, /auth/me too.
        if (!mustChoosePassword) void refreshUser();
      });
    return () => {
      active = false;
    };
  }, [refreshUser]);

  // A 401 on any authenticated call ends the session; the route guards then show /login, which asks
  // the same person to sign in again when their queued writes wait for it.
  const userRef = useRef<User | null>(null);
  useEffect(() => {
    userRef.current = state.user;
  }, [state.user]);
  useEffect(
    () =>
      onUnauthorized((code) => {
        const user = userRef.current;
        if (user !== null) markSessionEnded(user.id);
        if (code === 'password_reset' && user !== null) {
          // Security: this device has heard of the reset, so the old password no longer opens it offline.
          markPasswordWasReset(user.email);
          forgetDeviceVerifier(user.id).catch((error: unknown) =>
            console.warn('Could not forget the old password on this device', error),
          );
        }
        logout();
      }),
    [logout],
  );
  // A session the server holds to choosing a password (this device missed it, say an older tab): show that screen.
  useEffect(
    () =>
      onPasswordChangeRequired(() => {
        const userId = userRef.current?.id;
        if (userId === undefined) return;
        markPasswordChangeRequired(userId);
        setState((current) => (current.user ? { ...current, mustChoosePassword: true } : current));
      }),
    [],
  );

  // An avatar change of the current user: re-fetch the user and bump the cache-busting counter.
  const currentUserId = state.user?.id ?? null;
  useEffect(() => {
    if (currentUserId === null) {
      return undefined;
    }
    const handleAvatarUpdated = (event: Event): void => {
      if (avatarUpdatedUserId(event) !== currentUserId) {
        return;
      }
      setAvatarVersion((version) => version + 1);
      void refreshUser();
    };
    window.addEventListener(avatarUpdatedEvent, handleAvatarUpdated);
    return () => window.removeEventListener(avatarUpdatedEvent, handleAvatarUpdated);
  }, [currentUserId, refreshUser]);

  const signIn = useCallback(
    async (
      call: () => Promise<AuthResponse>,
      messages: { failure: string; exception: string },
      remember: (user: User, token: string) => Promise<void>,
    ): Promise<AuthResult & { unreachable?: boolean }> => {
      try {
        const answer = await call();
        if (!answer.ok || !answer.token || !answer.user) {
          return { ok: false, message: answer.message || messages.failure };
        }
        if (answer.passwordChangeRequired === true) {
          // A one-time code is never remembered; the password it replaced must not open this device offline either.
          await forgetDeviceVerifier(answer.user.id).catch((error: unknown) =>
            console.warn('Could not forget the old password on this device', error),
          );
          applySession(answer.user, answer.token, true);
          return { ok: true };
        }
        // Kept before success is reported: an app closed the moment the dashboard shows must reopen offline. The
        // password's verifier has been deriving since the request left (startRememberingPassword), so this is short.
        await remember(answer.user, answer.token).catch((error: unknown) =>
          console.warn('Could not remember this account for offline use', error),
        );
        applySession(answer.user, answer.token);
        return { ok: true };
      } catch (error) {
        return { ok: false, message: authFailureMessage(error, messages), unreachable: isNetworkError(error) };
      }
    },
    [applySession],
  );

  /** Signs in with what this device knows: the verifier of an earlier online sign-in. */
  const signInWithDevice = useCallback(
    async (email: string, password: string): Promise<AuthResult> => {
      const outcome = await signInOffline(email, password);
      if (!outcome.ok) return { ok: false, message: offlineSignInMessage(outcome) };
      applySession(outcome.user, outcome.token);
      return { ok: true };
    },
    [applySession],
  );

  const login = useCallback(
    async (email: string, password: string): Promise<AuthResult> => {
      if (!navigator.onLine) return signInWithDevice(email, password);
      const online = await signIn(
        () => loginRequest(email, password),
        authMessages.login,
        startRememberingPassword(password),
      );
      // The network claims to be up but the server is out of reach (a captive portal, flaky Wi-Fi).
      if (!online.ok && online.unreachable === true && (await deviceAccountFor(email))) {
        return signInWithDevice(email, password);
      }
      return online.ok ? online : { ok: false, message: online.message };
    },
    [signIn, signInWithDevice],
  );
  const register = useCallback(
    (name: string, email: string, password: string, invitation: string | null = null) =>
      signIn(
        () => registerRequest(name, email, password, invitation),
        authMessages.register,
        startRememberingPassword(password),
      ),
    [signIn],
  );
  const googleLogin = useCallback(
    (tokenId: string) => signIn(() => googleLoginRequest(tokenId), authMessages.google, rememberGoogleAccount),
    [signIn],
  );
  /** "Continue offline as {name}": the account that last signed in with Google on this device. */
  const continueOffline = useCallback(
    async (userId: string): Promise<AuthResult> => {
      const account = await deviceAccountById(userId);
      if (!account?.googleSignedInAt) return { ok: false, message: authMessages.offlineUnknownAccount };
      applySession(account.user, account.token);
      return { ok: true };
    },
    [applySession],
  );

  /** The new password of a session opened with a one-time code; remembered for offline sign-in once the server took it. */
  const choosePassword = useCallback(
    async (newPassword: string): Promise<AuthResult> => {
      const { user, token } = state;
      const messages = authMessages.choosePassword;
      if (!user || !token || !state.mustChoosePassword) return { ok: false, message: messages.failure };
      const keepPassword = startRememberingPassword(newPassword);
      try {
        const answer = await choosePasswordRequest(newPassword);
        if (!answer.success) return { ok: false, message: answer.message || messages.failure };
      } catch (error) {
        return { ok: false, message: authFailureMessage(error, messages) };
      }
      await keepPassword(user, token).catch((error: unknown) =>
        console.warn('Could not remember this account for offline use', error),
      );
      if (tokenRef.current !== token) return { ok: true };
      clearPasswordChangeRequired();
      setState((current) => ({ ...current, mustChoosePassword: false }));
      void refreshUser();
      return { ok: true };
    },
    [state, refreshUser],
  );

  const value = useMemo<AuthContextValue>(() => {
    const { mustChoosePassword, ...session } = state;
    // Until the new password is chosen nothing of the workspace opens: to the rest of the app, nobody is signed in.
    const visible = mustChoosePassword ? { ...session, user: null, token: null } : session;
    return {
      ...visible,
      passwordChangeFor: mustChoosePassword ? state.user : null,
      choosePassword,
      avatarVersion,
      login,
      register,
      googleLogin,
      continueOffline,
      logout,
      setUser,
    };
  }, [state, choosePassword, avatarVersion, login, register, googleLogin, continueOffline, logout, setUser]);

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
