// A random bot for arena in JavaScript (Node.js, no packages): the JSON-lines protocol of
// docs/protocol.md. Copy this file and random-js.toml into bots/ and run `arena bots`.
"use strict";
const readline = require("readline");

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

// Answers are written together once the lines arena sent at once are all read: one write
// instead of one per answer (arena sends a batch of requests when it has several).
let out = [];
function send(message) {
  if (out.length === 0) setImmediate(flush);
  out.push(JSON.stringify(message) + "\n");
}
function flush() {
  process.stdout.write(out.join(""));
  out = [];
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ type: "hello", protocol: 1, name: "random-js",
             games: ["twenty-down", "how-low-can-you-go"] });
      break;
    case "start":
      rngs.set(message.id, seeded(message.seed));
      break;
    case "act": {
      const rng = rngs.get(message.id) || Math.random;
      const legal = message.observation.legal_actions;
      send({ type: "action", action: legal[Math.floor(rng() * legal.length)] });
      break;
    }
    case "end":
      rngs.delete(message.id);
      break;
  }
});
