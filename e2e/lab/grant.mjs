// Trades N8N_RUNNERS_AUTH_TOKEN for a single-use grant token at the broker
// and prints it. The token goes to stdout only, never to a log.
const uri = process.env.N8N_RUNNERS_TASK_BROKER_URI;
const res = await fetch(new URL("/runners/auth", uri), {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ token: process.env.N8N_RUNNERS_AUTH_TOKEN }),
  signal: AbortSignal.timeout(5000),
}).catch((e) => ({ ok: false, status: e.code || e.name }));
if (!res.ok) {
  console.error(`grant: broker ${uri} answered ${res.status}`);
  process.exit(1);
}
process.stdout.write((await res.json()).data.token);
