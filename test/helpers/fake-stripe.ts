import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Params = { [key: string]: string | Params };

/** Stripe's form encoding: `a[b][0][c]=v` becomes { a: { b: { 0: { c: 'v' } } } }. */
export function parseForm(body: string): Params {
  const out: Params = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node = out;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) node[part] = value;
      else {
        let next = node[part];
        if (typeof next !== 'object') {
          next = {};
          node[part] = next;
        }
        node = next;
      }
    }
  }
  return out;
}

export interface Recorded {
  method: string;
  path: string;
  params: Params;
  idempotencyKey: string | undefined;
}

interface Session {
  id: string;
  object: 'checkout.session';
  mode: string;
  customer: string | null;
  client_reference_id: string | null;
  metadata: Params;
  url: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  amount_total: number | null;
  currency: string | null;
  setup_intent: string | null;
  payment_intent: string | null;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/**
 * A local HTTP server that speaks the Stripe REST wire format for the calls agentpress makes:
 * form-encoded requests with a bearer secret key, JSON objects with an `object` member, errors as
 * `{error: {type, code, message, decline_code}}` with Stripe's statuses (402 for card errors),
 * and replays of an Idempotency-Key answered with the first response.
 */
export class FakeStripe {
  readonly requests: Recorded[] = [];
  readonly sessions = new Map<string, Session>();
  readonly paymentMethods = new Map<string, { brand: string; last4: string; declines: boolean }>();
  readonly setupIntents = new Map<string, { payment_method: string; customer: string | null }>();
  readonly paymentIntents = new Map<string, { amount: number; refunded: number }>();
  /** The next card a setup Checkout saves declines every charge (Stripe's 4000000000000341). */
  nextCardDeclines = false;
  /** Answer the next n requests with 500 api_error (Stripe having a bad moment). */
  failNext = 0;
  /** Refunds are refused (for example, the charge is too old to refund). */
  refundsFail = false;
  #idempotent = new Map<string, { status: number; body: unknown }>();
  #server: Server;
  base = '';

  constructor(readonly secretKey = 'sk_test_fake') {
    this.#server = createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  calls(method: string, path: string | RegExp): Recorded[] {
    return this.requests.filter(
      (r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://stripe.test');
    const params = parseForm(req.method === 'GET' ? url.search.slice(1) : Buffer.concat(chunks).toString());
    const key = req.headers['idempotency-key'];
    const idempotencyKey = typeof key === 'string' ? key : undefined;
    this.requests.push({ method: req.method ?? '', path: url.pathname, params, idempotencyKey });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${this.secretKey}`)
      return send(401, {
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_****' },
      });
    if (this.failNext > 0) {
      this.failNext -= 1;
      return send(500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
    }
    const memo = idempotencyKey ? this.#idempotent.get(`${req.method} ${idempotencyKey}`) : undefined;
    if (memo) return send(memo.status, memo.body);
    const [status, body] = this.route(req.method ?? 'GET', url.pathname, params);
    if (idempotencyKey && req.method === 'POST')
      this.#idempotent.set(`${req.method} ${idempotencyKey}`, { status, body });
    send(status, body);
  }

  private route(method: string, path: string, p: Params): [number, unknown] {
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    if (method === 'POST' && path === '/v1/customers') {
      return [200, { id: id('cus'), object: 'customer', email: str(p.email), metadata: p.metadata ?? {} }];
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const sid = id('cs_test');
      const items = (p.line_items as Params | undefined)?.['0'] as Params | undefined;
      const price = items?.price_data as Params | undefined;
      const session: Session = {
        id: sid,
        object: 'checkout.session',
        mode: str(p.mode) ?? 'payment',
        customer: str(p.customer),
        client_reference_id: str(p.client_reference_id),
        metadata: (p.metadata as Params | undefined) ?? {},
        url: `https://checkout.stripe.test/c/pay/${sid}`,
        status: 'open',
        payment_status: p.mode === 'setup' ? 'no_payment_required' : 'unpaid',
        amount_total: price ? Number(price.unit_amount) * Number(items?.quantity ?? 1) : null,
        currency: str(price?.currency) ?? str(p.currency),
        setup_intent: null,
        payment_intent: null,
      };
      this.sessions.set(sid, session);
      return [200, session];
    }
    const si = /^\/v1\/setup_intents\/([^/]+)$/.exec(path);
    if (method === 'GET' && si) {
      const intent = this.setupIntents.get(si[1]!);
      if (!intent) return missing('setup_intent', si[1]!);
      return [200, { id: si[1], object: 'setup_intent', status: 'succeeded', ...intent }];
    }
    const pm = /^\/v1\/payment_methods\/([^/]+)$/.exec(path);
    if (method === 'GET' && pm) {
      const card = this.paymentMethods.get(pm[1]!);
      if (!card) return missing('payment_method', pm[1]!);
      return [
        200,
        {
          id: pm[1],
          object: 'payment_method',
          type: 'card',
          card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: 2034 },
        },
      ];
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const card = this.paymentMethods.get(str(p.payment_method) ?? '');
      const amount = Number(p.amount);
      if (!Number.isInteger(amount) || amount < 50)
        return [
          400,
          { error: { type: 'invalid_request_error', param: 'amount', message: 'Invalid amount' } },
        ];
      if (!card) return missing('payment_method', str(p.payment_method) ?? '');
      const piId = id('pi');
      if (card.declines)
        return [
          402,
          {
            error: {
              type: 'card_error',
              code: 'card_declined',
              decline_code: 'insufficient_funds',
              message: 'Your card has insufficient funds.',
              payment_intent: { id: piId, object: 'payment_intent', status: 'requires_payment_method' },
            },
          },
        ];
      this.paymentIntents.set(piId, { amount, refunded: 0 });
      return [
        200,
        {
          id: piId,
          object: 'payment_intent',
          status: 'succeeded',
          amount,
          currency: str(p.currency),
          customer: str(p.customer),
          payment_method: str(p.payment_method),
        },
      ];
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const piId = str(p.payment_intent) ?? '';
      const pi = this.paymentIntents.get(piId);
      if (!pi) return missing('payment_intent', piId);
      if (this.refundsFail)
        return [
          400,
          {
            error: {
              type: 'invalid_request_error',
              code: 'charge_expired_for_refund',
              message: 'The charge is too old to be refunded.',
            },
          },
        ];
      const amount = p.amount === undefined ? pi.amount - pi.refunded : Number(p.amount);
      if (amount > pi.amount - pi.refunded)
        return [
          400,
          {
            error: {
              type: 'invalid_request_error',
              code: 'charge_already_refunded',
              message: `Refund amount ($${amount / 100}) is greater than unrefunded amount on charge`,
            },
          },
        ];
      pi.refunded += amount;
      return [200, { id: id('re'), object: 'refund', status: 'succeeded', amount, payment_intent: piId }];
    }
    return [
      404,
      { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } },
    ];
  }

  /** The customer finishes a setup-mode Checkout: a card is saved; returns the event Stripe would send. */
  completeSetup(sessionId: string, card = { brand: 'visa', last4: '4242' }) {
    const s = this.sessions.get(sessionId);
    if (s?.mode !== 'setup') throw new Error(`no setup session ${sessionId}`);
    const pmId = id('pm');
    this.paymentMethods.set(pmId, { ...card, declines: this.nextCardDeclines });
    const siId = id('seti');
    this.setupIntents.set(siId, { payment_method: pmId, customer: s.customer });
    Object.assign(s, { status: 'complete', setup_intent: siId });
    return this.event('checkout.session.completed', s);
  }

  /** The customer pays a payment-mode Checkout. */
  completePayment(sessionId: string) {
    const s = this.sessions.get(sessionId);
    if (s?.mode !== 'payment') throw new Error(`no payment session ${sessionId}`);
    const piId = id('pi');
    this.paymentIntents.set(piId, { amount: s.amount_total ?? 0, refunded: 0 });
    Object.assign(s, { status: 'complete', payment_status: 'paid', payment_intent: piId });
    return this.event('checkout.session.completed', s);
  }

  /** The customer never pays: Checkout expires the session. */
  expire(sessionId: string) {
    const s = this.sessions.get(sessionId);
    if (!s) throw new Error(`no session ${sessionId}`);
    Object.assign(s, { status: 'expired' });
    return this.event('checkout.session.expired', s);
  }

  event(type: string, object: unknown) {
    return {
      id: id('evt'),
      object: 'event',
      api_version: '2025-10-29.clover',
      created: Math.floor(Date.now() / 1000),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object: structuredClone(object) },
    };
  }
}

function missing(kind: string, which: string): [number, unknown] {
  return [
    404,
    {
      error: {
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'id',
        message: `No such ${kind}: '${which}'`,
      },
    },
  ];
}
