import type { IncomingHttpHeaders } from 'node:http';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';

// ajv-formats is CommonJS with a default export; under NodeNext the namespace is what we get.
const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

interface Message {
  name: string;
  headers: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/**
 * Checks webhook deliveries against /asyncapi.json as served: the body must validate against the
 * payload schema of the message whose name is the event's `type`, and the HTTP headers against
 * that message's headers schema (the Standard Webhooks trio). AsyncAPI 3.0 schemas are JSON
 * Schema draft-07, so this uses ajv's draft-07 validator.
 */
export class WebhookContract {
  readonly #messages = new Map<string, { headers: ValidateFunction; payload: ValidateFunction }>();
  readonly #ajv = new Ajv({ strict: false, allErrors: true });
  /** Deliveries checked and mismatches found, for the summary. */
  checked = 0;
  mismatches = 0;

  constructor(doc: { components: { messages: Record<string, Message> } }) {
    addFormats(this.#ajv);
    for (const m of Object.values(doc.components.messages)) {
      this.#messages.set(m.name, {
        headers: this.#ajv.compile(m.headers),
        payload: this.#ajv.compile(m.payload),
      });
    }
  }

  get kinds(): string[] {
    return [...this.#messages.keys()];
  }

  /** The mismatches of one delivery (empty when it keeps the contract). */
  check(headers: IncomingHttpHeaders, body: string): string[] {
    this.checked++;
    const errors = this.#check(headers, body);
    if (errors.length > 0) this.mismatches++;
    return errors;
  }

  #check(headers: IncomingHttpHeaders, body: string): string[] {
    let payload: { type?: unknown };
    try {
      payload = JSON.parse(body);
    } catch {
      return [`the delivery body is not JSON: ${body.slice(0, 200)}`];
    }
    const message = this.#messages.get(String(payload?.type));
    if (!message) return [`event type ${JSON.stringify(payload?.type)} is no message of /asyncapi.json`];
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) flat[k.toLowerCase()] = String(v);
    const errors: string[] = [];
    if (!message.headers(flat))
      errors.push(`headers: ${this.#ajv.errorsText(message.headers.errors, { dataVar: 'headers' })}`);
    if (!message.payload(payload))
      errors.push(`payload: ${this.#ajv.errorsText(message.payload.errors, { dataVar: 'body' })}`);
    return errors.map((e) => `${String(payload.type)} delivery breaks /asyncapi.json: ${e}`);
  }
}
