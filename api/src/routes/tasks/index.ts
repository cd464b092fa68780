import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addCommentArgsSchema,
  createTaskArgsSchema,
  editTaskArgsSchema,
  idSchema,
  tasksPageDefaultLimit,
  tasksPageQuerySchema,
  uuidv7,
} from '@office/sync-protocol';
import { runCommand } from '../../domain/commands';
import { listOlderCompletedTasks, listVisibleTaskPage, listVisibleTasks } from '../../domain/tasks/read';
import {
  addCommentCommand,
  createTaskCommand,
  deleteTaskCommand,
  editTaskCommand,
  writtenTask,
} from '../../domain/tasks/commands';
import { jsonBody } from '../schemas';

const taskParams = z.object({ id: idSchema });

export const taskRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };
  const listSchema = {
    summary:
      'The tasks the caller may see: all of them, a page with `page` and `limit`, or with `status=completed` the ' +
      'completed ones last changed before `before` (and `beforeId`), newest first, and where the next page starts',
    querystring: tasksPageQuerySchema,
  };
  app.get('/', { ...auth, schema: listSchema }, async (request) => {
    const { page, limit, status, before, beforeId } = request.query;
    if (status === 'completed')
      return listOlderCompletedTasks(app.db, request.actor, {
        before,
        beforeId,
        limit: limit ?? tasksPageDefaultLimit,
      });
    if (page === undefined && limit === undefined) return { tasks: await listVisibleTasks(app.db, request.actor) };
    return listVisibleTaskPage(app.db, request.actor, { page: page ?? 1, limit: limit ?? tasksPageDefaultLimit });
  });

  // The author is always the signed-in user: `assignedBy` in the spec's payload is not read. REST clients may omit the id.
  const createBody = jsonBody(createTaskArgsSchema.extend({ id: idSchema.optional() }));
  const createSchema = {
    summary: 'Create a task (201): the task as stored',
    body: createBody,
    refuses: ['forbidden', 'user_not_found', 'duplicate_id'],
  } as const;
  app.post('/', { ...auth, schema: createSchema }, async (request, reply) => {
    const task = await writtenTask(
      app.db,
      await runCommand(app.db, app.flush, request.actor, createTaskCommand, {
        ...request.body,
        id: request.body.id ?? uuidv7(),
      }),
    );
    return reply.status(201).send({ success: true, task, message: 'Task created successfully' });
  });

  const editBody = jsonBody(editTaskArgsSchema.omit({ id: true }));
  const editSchema = {
    summary: "Edit a task's fields or status (what the caller's role allows): the task",
    params: taskParams,
    body: editBody,
    refuses: ['forbidden', 'task_not_found', 'user_not_found'],
  } as const;
  app.put('/:id', { ...auth, schema: editSchema }, async (request) => {
    const task = await writtenTask(
      app.db,
      await runCommand(app.db, app.flush, request.actor, editTaskCommand, {
        ...request.body,
        id: request.params.id,
      }),
    );
    return { success: true, task, message: 'Task updated successfully' };
  });

  const deleteSchema = {
    summary: 'Delete a task (its creator, managers, admins)',
    params: taskParams,
    refuses: ['forbidden', 'task_not_found'],
  } as const;
  app.delete('/:id', { ...auth, schema: deleteSchema }, async (request) => {
    await runCommand(app.db, app.flush, request.actor, deleteTaskCommand, { id: request.params.id });
    return { success: true, message: 'Task deleted successfully' };
  });

  const commentBody = jsonBody(addCommentArgsSchema.omit({ taskId: true }).extend({ id: idSchema.optional() }));
  const commentSchema = {
    summary: 'Comment on a task (201): the task with its comments',
    params: taskParams,
    body: commentBody,
    refuses: ['forbidden', 'task_not_found', 'duplicate_id'],
  } as const;
  app.post('/:id/comments', { ...auth, schema: commentSchema }, async (request, reply) => {
    const task = await writtenTask(
      app.db,
      await runCommand(app.db, app.flush, request.actor, addCommentCommand, {
        ...request.body,
        id: request.body.id ?? uuidv7(),
        taskId: request.params.id,
      }),
    );
    return reply.status(201).send({ success: true, task, message: 'Comment added successfully' });
  });

  done();
};
