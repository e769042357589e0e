import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ModerationInput } from '../../src/core/moderation/moderator.js';
import { prefilter } from '../../src/core/moderation/prefilter.js';

/**
 * A real local server that speaks the chat-completions wire format (as vLLM and llama.cpp's
 * llama-server do). Each test scripts what it answers, one handler per request, and reads back
 * what it received. The answer builders below write the message bodies as the model cards
 * document them: free JSON, gpt-oss-safeguard's reasoning plus final answer, Qwen3Guard's
 * `Safety:`/`Categories:` lines, Llama Guard's `safe` / `unsafe\nS1,S10`.
 */
export interface ChatRequestBody {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
  logprobs?: boolean;
  reasoning_effort?: string;
  response_format?: {
    type: string;
    json_schema: { name: string; strict: boolean; schema: Record<string, unknown> };
  };
  [k: string]: unknown;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: ChatRequestBody) => void;

export interface Received {
  path: string | undefined;
  headers: IncomingMessage['headers'];
  body: ChatRequestBody;
}

export interface ChatServer {
  /** The API root, e.g. http://127.0.0.1:PORT/v1. */
  readonly baseUrl: string;
  /** Handlers for the next requests, in order; a request with none left gets a 500. */
  script: Handler[];
  readonly received: Received[];
  reset(): void;
  close(): Promise<void>;
}

export async function startChatServer(): Promise<ChatServer> {
  const received: Received[] = [];
  const state = { script: [] as Handler[] };
  const server: Server = createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      data += c;
    });
    req.on('end', () => {
      const body = JSON.parse(data) as ChatRequestBody;
      received.push({ path: req.url, headers: req.headers, body });
      const next = state.script.shift();
      if (!next) {
        res.writeHead(500).end('no scripted answer');
        return;
      }
      next(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseUrl,
    get script() {
      return state.script;
    },
    set script(handlers: Handler[]) {
      state.script = handlers;
    },
    received,
    reset() {
      state.script = [];
      received.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * One chat server for the test file: listening before its tests, its script and log cleared before
 * each, closed after all. Read it inside tests and hooks (it starts in beforeAll).
 */
export function chatServerForFile(): ChatServer {
  let srv: ChatServer | undefined;
  const live = () => {
    if (!srv) throw new Error('chatServerForFile: the server starts in beforeAll');
    return srv;
  };
  beforeAll(async () => {
    srv = await startChatServer();
  });
  afterAll(async () => {
    await srv?.close();
  });
  beforeEach(() => live().reset());
  return {
    get baseUrl() {
      return live().baseUrl;
    },
    get script() {
      return live().script;
    },
    set script(handlers: Handler[]) {
      live().script = handlers;
    },
    get received() {
      return live().received;
    },
    reset: () => live().reset(),
    close: () => live().close(),
  };
}

/** A post as the moderator receives it (id post_1), with the prefilter's signals. */
export function moderationInput(title: string | null, body: string): ModerationInput {
  return { id: 'post_1', title, body, prefilter: prefilter(title, body) };
}

/** A base URL on which nothing listens (connection refused). */
export async function refusingBaseUrl(): Promise<string> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

export interface AnswerOptions {
  /** gpt-oss-safeguard's analysis channel, as vLLM returns it. */
  reasoning?: string;
  /** Where the server puts it: `reasoning` (vLLM >= 0.11) or `reasoning_content` (older vLLM, llama-server). */
  reasoningField?: 'reasoning' | 'reasoning_content';
  /** Generated tokens and their log probabilities (`logprobs: true`). */
  logprobs?: [token: string, logprob: number][];
  finishReason?: string;
}

/** A chat.completion envelope as vLLM writes it. */
export function completion(content: string | null, opts: AnswerOptions = {}) {
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (opts.reasoning !== undefined) message[opts.reasoningField ?? 'reasoning_content'] = opts.reasoning;
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'test-model-served',
    choices: [
      {
        index: 0,
        message,
        logprobs: opts.logprobs
          ? {
              content: opts.logprobs.map(([token, logprob]) => ({
                token,
                logprob,
                bytes: [...Buffer.from(token)],
                top_logprobs: [],
              })),
            }
          : null,
        finish_reason: opts.finishReason ?? 'stop',
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  };
}

/** Answers 200 with one message. */
export const reply =
  (content: string | null, opts: AnswerOptions = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(content, opts)));
  };

/** Answers an error status with an OpenAI-style error body. */
export const status =
  (code: number, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message: 'model crashed', type: 'server_error' } }));
  };

/** Answers 200 with a body that is not a chat completion. */
export const garbage =
  (text: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(text);
  };

/** Never answers. */
export const hang: Handler = () => {};

// --- Model-card answers -------------------------------------------------------------------------

/** Llama Guard 3/4: `safe`, or `unsafe` and a line of comma-separated S-codes. */
export const llamaGuard = {
  safe: (p = 0.999) => reply('safe', { logprobs: [['safe', Math.log(p)]] }),
  unsafe: (codes: string[], p = 0.98) =>
    reply(`unsafe\n${codes.join(',')}`, {
      // "unsafe", "\n", then "S", "10", "," ... as a Llama 3 tokenizer splits them; the label
      // carries the uncertainty, the rest is near 1.
      logprobs: [
        ['unsafe', Math.log(p)],
        ['\n', -0.0001],
        ...codes.flatMap((c, i): [string, number][] => [
          ...(i > 0 ? [[',', -0.0002] as [string, number]] : []),
          ['S', -0.0001],
          [c.slice(1), -0.0003],
        ]),
      ],
    }),
};

/** Qwen3Guard-Gen (prompt moderation): `Safety: <label>` and `Categories: <names>`. */
export const qwen3guard = {
  answer: (label: 'Safe' | 'Unsafe' | 'Controversial', categories: string[], p = 0.98) =>
    reply(`Safety: ${label}\nCategories: ${categories.length ? categories.join(', ') : 'None'}`, {
      logprobs: [
        ['Safety', -0.00001],
        [':', -0.00001],
        [` ${label}`, Math.log(p)],
        ['\n', -0.00001],
        ['Categories', -0.00001],
        [':', -0.00001],
        ...(categories.length ? categories : ['None']).map((c): [string, number] => [` ${c}`, -0.0005]),
      ],
    }),
};
