import { inject } from 'vitest';
// Declares what inject('postgresServerUrl') and inject('postgresStartFailure') return.
import type {} from './pg-global-setup';

/**
 * In a test file: the URL of the PostgreSQL its project shares (pg-global-setup.ts), or null in a project without
 * one. When that PostgreSQL did not start it throws the reason, so the files that need it fail, each saying why.
 */
export function sharedPostgresUrl(): string | null {
  const failure = inject('postgresStartFailure');
  if (failure) throw new Error(failure);
  return inject('postgresServerUrl') ?? null;
}
