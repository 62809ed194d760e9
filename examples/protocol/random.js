// A random bot for arena in JavaScript (Node.js, no packages): the JSON-lines protocol of
// docs/protocol.md. Copy this file and random-js.toml into bots/ and run `arena bots`.
"use strict";

// One generator per game: a program may be asked about several games at once, each named by
// its id (one per seat it plays).
const rngs = new Map();

// A small seeded generator, so that a game replays exactly with the same --seed.
function seeded(hex) {
  let state = parseInt(hex.slice(0, 8), 16) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function answer(message) {
  switch (message.type) {
    case "hello": {
      const hello = { type: "hello", protocol: 1, name: "random-js",
                      games: ["twenty-down", "how-low-can-you-go"] };
      // The compact form (docs/protocol.md): no observation field is needed to play at random,
      // so none is asked for; each request then says how many legal actions there are. (The
      // manifest's setting compact = false asks for whole requests: benchmarks/protocol_speed.py.)
      if (!(message.settings && message.settings.compact === false)) hello.fields = [];
      return hello;
    }
    case "start":
      rngs.set(message.id, seeded(message.seed));
      return null;
    case "act": {
      const rng = rngs.get(message.id) || Math.random;
      if (message.count !== undefined) {  // the compact form: answered by the action's index
        return { type: "action", request: message.request,
                 index: Math.floor(rng() * message.count) };
      }
      const legal = message.observation.legal_actions;  // (an arena without the compact form)
      return { type: "action", request: message.request,
               action: legal[Math.floor(rng() * legal.length)] };
    }
    case "end":
      rngs.delete(message.id);
      return null;
  }
  return null;
}

// The lines come in chunks: each chunk's complete lines are answered, and their answers written
// together in one write (arena writes a batch of requests at once when it has several).
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  const out = [];
  let start = 0;
  let end;
  while ((end = pending.indexOf("\n", start)) >= 0) {
    const line = pending.slice(start, end);
    start = end + 1;
    const reply = line.trim() ? answer(JSON.parse(line)) : null;
    if (reply !== null) out.push(JSON.stringify(reply) + "\n");
  }
  pending = pending.slice(start);
  if (out.length > 0) process.stdout.write(out.join(""));
});
