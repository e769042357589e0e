import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Problem, problemBody } from '../../core/problems.js';
import { siteForHost } from '../../core/sites/sites.js';
import { createMcpServer } from '../../mcp/server.js';
import type { AppContext } from '../app.js';
import { sendProblem } from '../errors.js';
import { optionalAgentOf } from '../guard.js';
import { OPTIONAL_KEY, operation } from '../operation.js';

/**
 * The MCP face: streamable HTTP at /mcp, stateless (a fresh server and transport per request, so
 * any process answers any request), JSON responses. The key is the REST API key as a bearer token:
 * a wrong one is a 401 here; no key at all makes a keyless connection, on which the keyed tools
 * answer the unauthorized problem as a tool error, as the REST operation would.
 */
export async function mcpRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { baseUrl, sites } = platform.config;
  const ownOrigin = new URL(baseUrl).origin;

  /** A web page of another origin (or a DNS-rebound name) may not drive the tools with a browser. */
  function checkOrigin(req: FastifyRequest): void {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    let parsed = 'null';
    try {
      parsed = new URL(origin).origin;
    } catch {}
    if (parsed !== ownOrigin) {
      throw new Problem('forbidden', {
        detail: `Requests from the origin ${origin} may not call /mcp; only ${ownOrigin} may, or a client that sends no Origin.`,
      });
    }
  }

  app.post(
    '/mcp',
    {
      // Tool arguments meet the text rule in the MCP server (a tool error, not an HTTP 422).
      config: { bodyTextCheckedBy: 'mcp' },
      schema: operation({
        tags: ['mcp'],
        summary: 'MCP over streamable HTTP (stateless, JSON responses): the same operations as tools',
        description:
          'A JSON-RPC 2.0 message of the Model Context Protocol (streamable HTTP transport). Without a key the connection is keyless: the keyed tools answer the unauthorized problem as a tool error. A wrong key is 401; a foreign Origin is 403.',
        security: OPTIONAL_KEY,
        responses: {
          200: z.looseObject({ jsonrpc: z.literal('2.0') }).describe('The JSON-RPC response'),
          202: null,
        },
        problems: ['forbidden'],
      }),
    },
    async (req, reply) => {
      checkOrigin(req);
      const principal = optionalAgentOf(req);
      const server = createMcpServer({
        services: platform.services,
        site: siteForHost(sites, req.hostname),
        ip: req.ip,
        principal,
        baseUrl,
        requestId: req.id,
        log: req.log,
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      // The transport writes the response itself; the headers every API answer carries go on first.
      reply.hijack();
      const res = reply.raw;
      res.setHeader('x-request-id', req.id);
      res.setHeader('cache-control', 'no-store');
      res.setHeader('x-content-type-options', 'nosniff');
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(req.raw, res, req.body);
      } catch (err) {
        req.log.error({ err }, 'mcp request failed');
        if (!res.headersSent) {
          const body = problemBody(new Problem('internal_error'), baseUrl, req.id);
          res.writeHead(500, { 'content-type': 'application/problem+json; charset=utf-8' });
          res.end(JSON.stringify(body));
        }
      }
    },
  );

  // Stateless: there is no session to resume with GET (a server-sent event stream) or to end with DELETE.
  const postOnly = (_req: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    return sendProblem(
      reply,
      new Problem('method_not_allowed', {
        detail: 'This MCP server is stateless: send every JSON-RPC message with POST /mcp.',
      }),
      baseUrl,
    );
  };
  app.get('/mcp', { schema: { hide: true }, config: { access: 'public' } }, postOnly);
  app.delete('/mcp', { schema: { hide: true }, config: { access: 'public' } }, postOnly);
}
