export type { SessionSummary, SessionsView } from './routes/sessions.js';
export { createHttpServer, type HttpServer, type HttpServerOptions } from './server.js';
