import http from 'node:http';
import type { Express } from 'express';

/** The API's Node HTTP server around the Express app: its timeouts and limits live here. */
export function createHttpServer(app: Express): http.Server {
  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  return server;
}
