import type { FastifyPluginCallback } from 'fastify';
import { tasksPageDefaultLimit, tasksPageQuerySchema, uuidv7, type Task } from '@office/sync-protocol';
import { newPendingEffects, runCommand, runInTransaction } from '../../domain/commands';
import { DomainError, parseInput } from '../../domain/errors';
import { listVisibleTaskPage, listVisibleTasks } from '../../domain/tasks/read';
import {
  addCommentCommand,
  createTaskCommand,
  deleteTaskCommand,
  setTaskStatusCommand,
  updateTaskCommand,
} from '../../domain/tasks/commands';

type Body = Record<string, unknown>;
const bodyOf = (body: unknown): Body => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('invalid_input');
  return body as Body;
};

export const taskRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };
  app.get('/', auth, (request) => {
    const { page, limit } = parseInput(tasksPageQuerySchema, request.query);
    if (page === undefined && limit === undefined) return { tasks: listVisibleTasks(app.db, request.actor) };
    return listVisibleTaskPage(app.db, request.actor, { page: page ?? 1, limit: limit ?? tasksPageDefaultLimit });
  });

  app.post('/', auth, (request, reply) => {
    const body = bodyOf(request.body);
    // The author is always the signed-in user, whatever `assignedBy` says; REST clients may omit the id.
    const { assignedBy: _ignored, ...args } = body;
    const task = runCommand(app.db, app.flush, request.actor, createTaskCommand, { id: uuidv7(), ...args });
    return reply.status(201).send({ success: true, task, message: 'Task created successfully' });
  });

  app.put<{ Params: { id: string } }>('/:id', auth, (request) => {
    const { status, note, baseStatusVersion, ...fields } = bodyOf(request.body);
    const id = request.params.id;
    const hasFields = Object.keys(fields).length > 0;
    if (!hasFields && status === undefined) throw new DomainError('invalid_input', 'Nothing to update');
    // A status change and a field edit are two commands, each with its own permission rule, run in one
    // transaction: a refusal of either leaves nothing of the other behind.
    const pending = newPendingEffects();
    const task = app.db.transaction((tx): Task | undefined => {
      let result: Task | undefined;
      if (hasFields) result = runInTransaction(tx, request.actor, updateTaskCommand, { ...fields, id }, pending);
      if (status !== undefined) {
        result = runInTransaction(
          tx,
          request.actor,
          setTaskStatusCommand,
          { id, status, note, baseStatusVersion },
          pending,
        );
      }
      return result;
    });
    app.flush(pending);
    return { success: true, task, message: 'Task updated successfully' };
  });

  app.delete<{ Params: { id: string } }>('/:id', auth, (request) => {
    runCommand(app.db, app.flush, request.actor, deleteTaskCommand, { id: request.params.id });
    return { success: true, message: 'Task deleted successfully' };
  });

  app.post<{ Params: { id: string } }>('/:id/comments', auth, (request, reply) => {
    const body = bodyOf(request.body);
    const task = runCommand(app.db, app.flush, request.actor, addCommentCommand, {
      id: uuidv7(),
      ...body,
      taskId: request.params.id,
    });
    return reply.status(201).send({ success: true, task, message: 'Comment added successfully' });
  });

  done();
};
