// A heuristic bot for arena in JavaScript (Node.js, no packages), for both games: the JSON-lines
// protocol of docs/protocol.md. It needs no memory between decisions: every request carries the
// whole observation. Copy this file and heuristic-js.toml into bots/ and run `arena bots`.
"use strict";
const readline = require("readline");

const RANKS = "23456789TJQKA";
const rank = (card) => RANKS.indexOf(card[0]);
const suit = (card) => card[1];

// How Low Can You Go?: a card's value (2..K count their rank, black aces 1, red aces -5);
// throw away the cards worth more than an average fresh draw, keep a hand of 5 or less.
const AVERAGE_DRAW = 352 / 52;
function value(card) {
  if (card[0] === "A") return "CS".includes(suit(card)) ? 1 : -5;
  return rank(card) + 2;
}
function howLow(obs) {
  const legal = obs.legal_actions;
  const total = obs.hand.reduce((sum, card) => sum + value(card), 0);
  if (legal.includes("redraw") && total > 45) return "redraw";
  const exchanges = legal.filter(Array.isArray);
  if (exchanges.length === 0) return legal[0];
  if (total <= 5) return exchanges.find((a) => a.length === 0) || exchanges[0];
  const gain = (a) => a.reduce((sum, card) => sum + value(card) - AVERAGE_DRAW, 0);
  let best = exchanges[0];
  for (const a of exchanges) {
    if (gain(a) > gain(best) || (gain(a) === gain(best) && a.length < best.length)) best = a;
  }
  return best;
}

// Twenty Down: every trick won is a point off; win cheaply, duck cheaply.
function beats(card, best, trump) {
  if (suit(card) === suit(best)) return rank(card) > rank(best);
  return suit(card) === trump;
}
function cheapest(cards, trump) {
  const cost = (c) => (suit(c) === trump ? 100 : 0) + rank(c);
  return cards.reduce((a, b) => (cost(b) < cost(a) ? b : a));
}
function twentyDown(obs) {
  const legal = obs.legal_actions;
  const trump = obs.trump;
  if (obs.phase === "trump") {
    const best = obs.hand.reduce((a, b) => (rank(b) > rank(a) ? b : a));
    return legal.includes(suit(best)) ? suit(best) : legal[0];
  }
  if (obs.phase === "exchange") {
    const weak = obs.hand
      .filter((c) => suit(c) !== trump && rank(c) < rank("Q"))
      .sort((a, b) => rank(a) - rank(b))
      .slice(0, 3);
    // arena accepts a set of cards in any order
    const wanted = legal.find((a) => a.length === weak.length && weak.every((c) => a.includes(c)));
    return wanted || legal[0];
  }
  if (obs.phase === "stay-or-drop") {
    const strong = obs.hand.some((c) => suit(c) === trump || c[0] === "A");
    const choice = strong ? "stay" : "drop";
    return legal.includes(choice) ? choice : legal[0];
  }
  const trick = obs.current_trick; // [[seat, card], ...]
  if (trick.length === 0) {
    const trumps = legal.filter((c) => suit(c) === trump);
    if (trumps.length >= 2) return trumps.reduce((a, b) => (rank(b) > rank(a) ? b : a));
    return legal.reduce((a, b) => (rank(b) > rank(a) ? b : a));
  }
  let best = trick[0][1];
  for (const [, card] of trick.slice(1)) if (beats(card, best, trump)) best = card;
  const winners = legal.filter((c) => beats(c, best, trump));
  return cheapest(winners.length ? winners : legal, trump);
}

let out = [];
function send(message) {
  if (out.length === 0) setImmediate(() => { process.stdout.write(out.join("")); out = []; });
  out.push(JSON.stringify(message) + "\n");
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "hello", protocol: 1, name: "heuristic-js",
           games: ["twenty-down", "how-low-can-you-go"] });
  } else if (message.type === "act") {
    const obs = message.observation;
    const action = obs.game === "twenty-down" ? twentyDown(obs) : howLow(obs);
    send({ type: "action", request: message.request, action });
  }
});
