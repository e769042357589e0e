import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Receipt {
  id: string;
  type: string;
  postId: string | undefined;
  at: number;
}

/**
 * A local webhook receiver that verifies every request with the `standardwebhooks` library. It
 * can be taken down (the port refuses connections) and brought back on the same port, and it
 * can hold each request for a while (so a worker can be killed with deliveries in flight).
 */
export class Receiver {
  /** Verified receipts, duplicates included (at-least-once). */
  readonly receipts: Receipt[] = [];
  /** Requests whose signature did not verify (must stay 0). */
  readonly rejected: string[] = [];
  inFlight = 0;
  holdMs = 0;
  secret = '';
  #server: Server | undefined;
  #port = 0;

  /** `offsetMs` shifts the receiver's clock (a process with a shifted clock signs with its own time). */
  constructor(private readonly offsetMs: () => number = () => 0) {}

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  get ids(): Set<string> {
    return new Set(this.receipts.map((r) => r.id));
  }

  async start(port = 0): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.inFlight++;
        const body = Buffer.concat(chunks).toString('utf8');
        const finish = () => {
          this.inFlight--;
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
          try {
            const realNow = Date.now;
            const offset = this.offsetMs();
            Date.now = () => realNow() + offset;
            let event: { type: string; data?: { post?: { id?: string } } };
            try {
              event = new Webhook(this.secret).verify(body, headers) as typeof event;
            } finally {
              Date.now = realNow;
            }
            this.receipts.push({
              id: headers['webhook-id'] ?? '',
              type: event.type,
              postId: event.data?.post?.id,
              at: Date.now(),
            });
            res.writeHead(204).end();
          } catch (err) {
            this.rejected.push(`${headers['webhook-id']}: ${String(err)}`);
            res.writeHead(400).end();
          }
        };
        if (this.holdMs > 0) setTimeout(finish, this.holdMs);
        else finish();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port || this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Down: the port refuses connections and open connections are cut. */
  async stop(): Promise<void> {
    const s = this.#server;
    this.#server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
