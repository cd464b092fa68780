import { isStaff, type Actor } from './roles';

/** Authors edit and delete their own messages; managers and admins any (spec section 6). */
export const canModerateChatMessage = (actor: Actor, message: { userId: { id: string } }): boolean =>
  isStaff(actor) || message.userId.id === actor.id;

/** Anyone in the team reacts to team chat; only a conversation's two participants react to its messages. */
export const canReactToDirectMessage = (actor: Actor, message: { participantIds: readonly string[] }): boolean =>
  message.participantIds.includes(actor.id);
