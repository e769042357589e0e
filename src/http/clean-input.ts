import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { FieldError } from '../core/problems.js';
import { textErrors, validationProblem } from '../core/validation.js';
import { CONTRACT_KEY } from './operation.js';

interface RouteSchema {
  querystring?: unknown;
  body?: unknown;
  [CONTRACT_KEY]?: unknown;
}

/**
 * What a request brings in that the boundary rule for text (src/core/validation.ts) refuses, at
 * the pointers toProblem uses: `/params/id`, `/query/q`, a body member bare (`/name`).
 *
 * Path parameters and bodies are always read. An API operation (declared with operation()) reads
 * only the query it declares: the type provider gives its handler nothing else, so an undeclared
 * query is not input (and a 422 there would be an answer the contract does not list). /mcp
 * declares `bodyTextCheckedBy: 'mcp'`: its tool arguments are checked by the MCP server,
 * which answers validation_failed as a tool error (a transport-level 422 would turn into an
 * exception in MCP clients). Pages and forms declare no schema and may read anything: everything
 * they receive is checked.
 */
export function unfitText(req: FastifyRequest): FieldError[] {
  const schema = req.routeOptions.schema as RouteSchema | undefined;
  const operation = schema?.[CONTRACT_KEY] !== undefined;
  // A body is always input (POST /v1/posts validates its site's body in core, with no schema
  // here), unless the route checks its text itself (MCP tool arguments).
  const ownCheck = req.routeOptions.config?.bodyTextCheckedBy;
  return [
    ...textErrors(req.params, '/params'),
    ...(!operation || schema?.querystring ? textErrors(req.query, '/query') : []),
    ...(ownCheck ? [] : textErrors(req.body)),
  ];
}

/**
 * The global preValidation hook (before any schema runs, after the body is parsed): a request
 * holding text that breaks the rule answers 422 validation_failed, naming each field. A request
 * no route matched is left to answer its 404.
 */
export function refuseUnfitText(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
  if (req.is404) return done();
  const errors = unfitText(req);
  done(errors.length > 0 ? validationProblem(errors) : undefined);
}
