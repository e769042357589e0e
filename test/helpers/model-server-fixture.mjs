// A stand-in for an OpenAI-compatible model server with a cold start, run as a real process by
// MODERATOR_START_COMMAND in test/e2e/model-lifecycle.test.ts.
//
//   node model-server-fixture.mjs --port 4100 [--ready-after 1000] [--model m] [--policy-version v]
//                                 [--mode-file f] [--pid-log f]
//
// It listens only after --ready-after ms (so the readiness probe, GET /v1/models, fails until
// then), answers POST /v1/chat/completions with a publish verdict in the JSON profile's shape,
// and reports what it saw at GET /fixture/stats. --mode-file holds `ok` (default), `fail` (exit 1
// at once: a start command that fails) or `hang` (never listen: a start that never gets ready).
// --pid-log gets this process's pid appended, so the test can check every copy is gone.
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const args = new Map();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i], process.argv[i + 1]);
const port = Number(args.get('--port'));
const readyAfter = Number(args.get('--ready-after') ?? 1000);
const model = args.get('--model') ?? 'fixture-model';
const policyVersion = args.get('--policy-version') ?? 'unknown';
const modeFile = args.get('--mode-file');
const pidLog = args.get('--pid-log');

if (pidLog) appendFileSync(pidLog, `${process.pid}\n`);
const mode = modeFile ? readFileSync(modeFile, 'utf8').trim() : 'ok';
if (mode === 'fail') {
  process.stderr.write('fixture: told to fail\n');
  process.exit(1);
}

const stats = { pid: process.pid, started_at: Date.now(), ready_at: 0, probes: 0, completions: 0 };

const json = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const server = createServer((req, res) => {
  // Read the request to its end (the prompt itself is not looked at).
  req.resume();
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      stats.probes++;
      return json(res, 200, { object: 'list', data: [{ id: model, object: 'model', owned_by: 'fixture' }] });
    }
    if (req.method === 'GET' && req.url === '/fixture/stats') return json(res, 200, stats);
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      stats.completions++;
      const verdict = {
        decision: 'publish',
        category: null,
        rule_ids: [],
        confidence: 0.95,
        reason: 'A coherent story; no policy concern.',
        evidence: [],
        policy_version: policyVersion,
      };
      return json(res, 200, {
        id: `chatcmpl-fixture-${stats.completions}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: JSON.stringify(verdict) },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    json(res, 404, { error: { message: 'not found' } });
  });
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close();
    process.exit(0);
  });
}

if (mode === 'hang') {
  // Alive, never ready.
  setInterval(() => {}, 60_000);
} else {
  setTimeout(() => {
    server.listen(port, '127.0.0.1', () => {
      stats.ready_at = Date.now();
    });
  }, readyAfter);
}
