import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import type { RouteSpec } from '../route.js';

/** Answers 405 (with Allow) when the path exists under another method, else 404 not_found. */
export function notFound(routes: RouteSpec[]) {
  const compiled = routes.map((r) => ({
    method: r.method.toUpperCase(),
    regex: new RegExp('^' + r.path.replace(/:[A-Za-z0-9_]+/g, '[^/]+') + '/?$'),
  }));
  return (req: Request, res: Response, next: NextFunction): void => {
    const allowed = compiled.filter((c) => c.regex.test(req.path)).map((c) => c.method);
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      res.setHeader('Allow', [...new Set(allowed)].join(', '));
      next(
        new ApiError(
          'method_not_allowed',
          `${req.method} is not allowed on ${req.path}; allowed: ${[...new Set(allowed)].join(', ')}.`,
        ),
      );
      return;
    }
    next(new ApiError('not_found', `No route for ${req.method} ${req.path}.`));
  };
}
