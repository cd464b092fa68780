import { z } from 'zod';

/**
 * A route's JSON body: no body at all (a client that sends none, or an empty one labelled JSON) is read as
 * `{}`, so the answer names the missing fields instead of "expected object".
 */
export const jsonBody = <S extends z.ZodType>(schema: S) => z.preprocess((body) => body ?? {}, schema);

/** A stored file's name in a download path; the route answers 404 for any name the server did not generate. */
export const fileParams = z.object({ filename: z.string() });
