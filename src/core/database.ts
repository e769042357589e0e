/**
 * What the faces (http, mcp, web) may know of the database, so none of them imports src/db:
 * whether an error means it is unreachable, and whether it answers (the readiness probe).
 */
export { databaseReadiness, isConnectionError } from '../db/client.js';
