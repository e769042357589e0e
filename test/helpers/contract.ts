import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';

/**
 * Checks a response against /openapi.json, the contract the same app serves: the status must be
 * declared for the operation, the body must validate against that response's schema (JSON Schema
 * 2020-12, `$ref`s to components resolved), its content type must be declared, and the headers
 * the response declares as required must be there (and match their schemas). A problem body's
 * `code` must be one the operation declares for that status (the schema's enum).
 *
 * The harness runs every API response through this (test/helpers/harness.ts); a mismatch fails
 * the test. Fix the route's declaration (src/http/operation.ts) or the code, not this checker.
 */

// ajv-formats is CommonJS with a default export; under NodeNext the namespace is what we get.
const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;

interface ResponseObject {
  description?: string;
  headers?: Record<string, { required?: boolean; schema?: Json }>;
  content?: Record<string, { schema?: Json }>;
}

interface OperationEntry {
  key: string;
  method: string;
  path: string;
  pattern: RegExp;
  /** Literal characters in the template: a literal path beats a parameterised one. */
  specificity: number;
  responses: Record<string, ResponseObject>;
}

export interface ResponseToCheck {
  method: string;
  /** Path with or without a query string. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** Counters of one test process, summed over the run by the global setup. */
export const contractStats = {
  /** Operations and declared responses in the document (the last one checked). */
  documentOperations: 0,
  documentResponses: 0,
  /** `METHOD /path` operations that answered at least once, and `METHOD /path STATUS` seen. */
  operationsSeen: new Set<string>(),
  responsesSeen: new Set<string>(),
  checked: 0,
  mismatches: 0,
  unchecked: 0,
};

const STATS_FILE = `${process.pid}-${randomBytes(4).toString('hex')}.json`;

const COMPONENTS_ID = 'https://contract.test/components.json';

/** Points `#/components/...` refs at the one schema that holds the components. */
function rebase<T>(v: T): T {
  if (Array.isArray(v)) return v.map(rebase) as T;
  if (v && typeof v === 'object') {
    const out: Json = {};
    for (const [k, x] of Object.entries(v as Json)) {
      out[k] =
        k === '$ref' && typeof x === 'string' && x.startsWith('#/components/')
          ? `${COMPONENTS_ID}${x}`
          : rebase(x);
    }
    return out as T;
  }
  return v;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export class ContractValidator {
  readonly #ajv: Ajv2020;
  readonly #ops: OperationEntry[] = [];
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly documentResponses: number;

  constructor(doc: Json) {
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ $id: COMPONENTS_ID, components: rebase(doc.components ?? {}) });
    let responses = 0;
    for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
      for (const method of METHODS) {
        const op = item[method] as { responses?: Record<string, ResponseObject> } | undefined;
        if (!op) continue;
        responses += Object.keys(op.responses ?? {}).length;
        const source = path
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
          .join('');
        this.#ops.push({
          key: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          pattern: new RegExp(`^${source}$`),
          specificity: path.replace(/\{[^}]+\}/g, '').length,
          responses: op.responses ?? {},
        });
      }
    }
    this.#ops.sort((a, b) => b.specificity - a.specificity);
    this.documentResponses = responses;
  }

  get documentOperations(): number {
    return this.#ops.length;
  }

  /** Whether the document describes this path at all (any method). */
  describes(path: string): boolean {
    return this.#ops.some((o) => o.pattern.test(path));
  }

  find(method: string, path: string): OperationEntry | undefined {
    return this.#ops.find((o) => o.method === method.toUpperCase() && o.pattern.test(path));
  }

  #validator(key: string, schema: Json): ValidateFunction {
    let v = this.#compiled.get(key);
    if (!v) {
      v = this.#ajv.compile(rebase(schema));
      this.#compiled.set(key, v);
    }
    return v;
  }

  /** Every example in the document (success and problem bodies), with where it is. */
  examples(): { where: string; errors: string[] }[] {
    const out: { where: string; errors: string[] }[] = [];
    for (const op of this.#ops) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          const m = media as { schema?: Json; examples?: Record<string, { value: unknown }> };
          if (!m.schema) continue;
          for (const [name, ex] of Object.entries(m.examples ?? {})) {
            const v = this.#validator(`${op.key} ${status} ${type}`, m.schema);
            out.push({
              where: `${op.key} ${status} ${type} example ${name}`,
              errors: v(ex.value) ? [] : describe(v.errors, ex.value),
            });
          }
        }
      }
    }
    return out;
  }

  /** The mismatches of one response (empty when it keeps the contract). */
  check(r: ResponseToCheck): string[] {
    const path = r.url.split('?')[0] ?? r.url;
    const op = this.find(r.method, path);
    if (!op) return [`${r.method} ${path} is not an operation of /openapi.json`];
    const status = String(r.status);
    const response = op.responses[status];
    if (!response) {
      return [
        `${op.key} answered ${status}, which it does not declare (declared: ${Object.keys(op.responses).join(', ')})${r.body ? `; body: ${r.body.slice(0, 300)}` : ''}`,
      ];
    }
    contractStats.operationsSeen.add(op.key);
    contractStats.responsesSeen.add(`${op.key} ${status}`);
    const errors: string[] = [];
    const header = (name: string) => {
      const v = r.headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v === undefined ? undefined : String(v);
    };
    for (const [name, h] of Object.entries(response.headers ?? {})) {
      const value = header(name);
      if (value === undefined) {
        if (h.required) errors.push(`header ${name} is required on ${status} but missing`);
        continue;
      }
      if (h.schema) {
        const v = this.#validator(`${op.key} ${status} header ${name}`, h.schema);
        if (!v(value))
          errors.push(`header ${name}: ${JSON.stringify(value)} ${this.#ajv.errorsText(v.errors)}`);
      }
    }
    const content = response.content ?? {};
    const types = Object.keys(content);
    if (types.length === 0) {
      if (r.body.length > 0) errors.push(`${status} declares no body but one came: ${r.body.slice(0, 200)}`);
      return errors;
    }
    const contentType = (header('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const media = content[contentType];
    if (!media) {
      errors.push(
        `content-type ${contentType || '(none)'} is not declared for ${status} (declared: ${types.join(', ')})`,
      );
      return errors;
    }
    if (!media.schema) return errors;
    let body: unknown = r.body;
    if (/[/+]json$/.test(contentType)) {
      try {
        body = JSON.parse(r.body);
      } catch {
        errors.push(`the ${contentType} body is not JSON: ${r.body.slice(0, 200)}`);
        return errors;
      }
    }
    const v = this.#validator(`${op.key} ${status} ${contentType}`, media.schema);
    if (!v(body)) errors.push(...describe(v.errors, body));
    return errors;
  }
}

function describe(errors: ErrorObject[] | null | undefined, body: unknown): string[] {
  const code = (body as { code?: unknown } | null)?.code;
  return (errors ?? [])
    .slice(0, 8)
    .map(
      (e) =>
        `body${e.instancePath || ''} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}${
          e.instancePath === '/code' && code !== undefined ? ` (code ${JSON.stringify(code)})` : ''
        }`,
    );
}

/** Paths the harness checks: the API and every path the document describes (contracts, feeds). */
export function isContractPath(validator: ContractValidator, url: string): boolean {
  const path = url.split('?')[0] ?? url;
  return path.startsWith('/v1/') || validator.describes(path);
}

export class ContractMismatch extends Error {
  constructor(r: ResponseToCheck, errors: string[]) {
    super(
      `Response breaks /openapi.json: ${r.method} ${r.url} -> ${r.status}\n  ${errors.join('\n  ')}\n` +
        'Fix the route (or its declaration in operation()), or pass `unchecked: true` if the test deliberately sends what the contract cannot describe.',
    );
    this.name = 'ContractMismatch';
  }
}

/** Checks one response, counting it; throws a ContractMismatch that names what is wrong. */
export function enforceContract(validator: ContractValidator, r: ResponseToCheck): void {
  if (r.method.toUpperCase() === 'HEAD' || !isContractPath(validator, r.url)) return;
  contractStats.documentOperations = validator.documentOperations;
  contractStats.documentResponses = validator.documentResponses;
  contractStats.checked++;
  const errors = validator.check(r);
  if (errors.length > 0) {
    contractStats.mismatches++;
    throw new ContractMismatch(r, errors);
  }
}

/** Writes this process's counters where the global setup sums them at the end of the run. */
export function writeContractStats(dir: string | undefined): void {
  if (!dir || contractStats.checked + contractStats.unchecked === 0) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, STATS_FILE),
    JSON.stringify({
      ...contractStats,
      operationsSeen: [...contractStats.operationsSeen],
      responsesSeen: [...contractStats.responsesSeen],
    }),
  );
}
