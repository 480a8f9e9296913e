export { createHttpServer, type HttpServer, type HttpServerOptions } from './server.js';
export type { SessionSummary, SessionsView } from './routes/sessions.js';
