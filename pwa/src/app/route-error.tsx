import { useRouteError } from 'react-router-dom';
import { LoadFailure } from './load-failure';

/** The error element of the routes: a screen that could not be loaded or that failed while drawing. */
export function RouteError() {
  return <LoadFailure error={useRouteError()} />;
}
