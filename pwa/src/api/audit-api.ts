import { auditPageSchema, type AuditPage, type AuditQuery } from '@office/sync-protocol';
import { api } from './http';

/** The filters and the page a request names; the limit is the server's default. */
export type AuditPageQuery = Pick<AuditQuery, 'person' | 'action' | 'before'>;

/** GET /api/audit (admins): one page of the audit trail, newest first. */
export function auditPageRequest(query: AuditPageQuery): Promise<AuditPage> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const search = params.toString();
  return api.get(`/audit${search ? `?${search}` : ''}`, { answer: auditPageSchema });
}
