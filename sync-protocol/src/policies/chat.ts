import { isStaff, type Actor } from './roles';

/** Authors edit and delete their own messages; managers and admins any (spec section 6). */
export const canModerateChatMessage = (actor: Actor, message: { userId: { id: string } }): boolean =>
  isStaff(actor) || message.userId.id === actor.id;
