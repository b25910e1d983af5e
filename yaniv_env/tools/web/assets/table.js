// Shared by the replay viewer and the play page: draws cards, a table and a round's end.
// Text goes in with textContent only (labels come from files and from the server).
const YanivTable = (() => {
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // One card of kind `kind`; `cards` is the page's card table (views.card_table).
  function card(kind, cards, extra) {
    const c = cards[kind];
    const node = el("div", "card" + (c.red ? " red" : "") + (c.joker ? " joker" : "") + (extra ? " " + extra : ""));
    node.dataset.kind = kind;
    node.title = c.joker ? "joker (0)" : c.rank + c.suit + " (" + c.value + ")";
    node.append(el("span", "rank", c.rank), el("span", "suit-small", c.suit), el("span", "suit-big", c.joker ? "JOKER" : c.suit));
    return node;
  }

  function back(extra) {
    const node = el("div", "card back" + (extra ? " " + extra : ""));
    node.title = "a hidden card";
    return node;
  }

  // A row of cards; `takeable` (kinds) get a highlight, one per kind listed.
  function row(kinds, cards, opts) {
    const o = opts || {};
    const node = el("div", "hand");
    const marks = (o.takeable || []).slice();
    for (const k of kinds) {
      const i = marks.indexOf(k);
      if (i >= 0) marks.splice(i, 1);
      node.append(card(k, cards, (o.small ? "small" : "") + (i >= 0 ? " takeable" : "")));
    }
    return node;
  }

  // A hand seen from outside: a back per unknown card, then the cards known to be in it.
  function hiddenHand(player, cards) {
    const node = el("div", "hand");
    for (let i = 0; i < player.size - player.known.length; i++) node.append(back());
    for (const k of player.known) node.append(card(k, cards, "known"));
    return node;
  }

  function seatName(seat, labels) {
    return "player_" + seat + (labels && labels[seat] ? " (" + labels[seat] + ")" : "");
  }

  // The table: one box per seat, then the discard and the stock. `show(seat)` says whether
  // a hand is drawn face up (it must be in the view: view.players[p].hand not null).
  function table(view, cards, opts) {
    const o = opts || {};
    const show = o.show || (() => true);
    const felt = el("div", "felt");
    felt.dataset.round = view.round;
    const seats = el("div", "seats");
    for (const p of view.players) {
      const box = el("div", "seat");
      box.dataset.seat = p.seat;
      const acting = view.phase !== "round_over" && view.phase !== "game_over" && view.current === p.seat;
      if (acting) box.classList.add("to-act");
      if (!p.alive) box.classList.add("out");
      const head = el("div", "seat-head");
      head.append(el("span", "seat-name", "player_" + p.seat));
      if (o.labels && o.labels[p.seat]) head.append(el("span", "seat-agent", o.labels[p.seat]));
      if (acting) head.append(el("span", "seat-note", "to act (" + view.phase + ")"));
      if (!p.alive) head.append(el("span", "seat-note", "out of the game"));
      const faceUp = p.hand !== null && show(p.seat);
      head.append(
        el("span", "seat-score", (faceUp ? "hand " + p.total + " · " : p.size + " cards · ") + "score " + p.score),
      );
      box.append(head);
      if (p.alive) {
        const hand = faceUp ? row(p.hand, cards) : hiddenHand(p, cards);
        hand.classList.add(faceUp ? "face-up" : "face-down");
        box.append(hand);
      }
      seats.append(box);
    }
    const center = el("div", "center");
    const discard = el("div", "pile discard");
    discard.append(view.top.length ? row(view.top, cards, { takeable: view.takeable }) : el("div", "hand muted", "—"));
    discard.append(el("div", "pile-label", "discard (highlighted: may be taken)"));
    center.append(discard);
    if (view.pending.length) {
      const laid = el("div", "pile pending");
      laid.append(row(view.pending, cards, { small: true }), el("div", "pile-label", "just laid"));
      center.append(laid);
    }
    const stock = el("div", "pile stock");
    const stack = el("div", "hand");
    stack.append(back());
    stock.append(stack, el("div", "pile-label stock-count", "stock: " + view.stock + " cards"));
    center.append(stock);
    felt.append(center, seats);
    return felt;
  }

  // A round's end as the rules reveal it (views.round_data).
  function roundOver(rr, cards, labels, title) {
    const box = el("div", "round-over");
    box.append(el("h3", null, (title || "Round over") + ": " + rr.text));
    const t = el("table");
    rr.totals.forEach((total, p) => {
      if (total === null) return;
      const tr = el("tr");
      const hand = el("td");
      hand.append(rr.hands[p].length ? row(rr.hands[p], cards, { small: true }) : el("span", "muted", "(no cards)"));
      const notes = [];
      if (rr.winners.includes(p)) notes.push("wins the round");
      if (rr.eliminated.includes(p)) notes.push("out of the game");
      tr.append(
        el("td", null, seatName(p, labels)),
        hand,
        el("td", "num", "= " + total),
        el("td", "num", "+" + rr.points[p]),
        el("td", "num", "score " + rr.scores[p]),
        el("td", "muted", notes.join(", ")),
      );
      t.append(tr);
    });
    box.append(t);
    return box;
  }

  // A game's result as one line per seat, the winner first: "1. player_0 (label) — 12 points".
  function ranking(result, labels) {
    const order = result.ranking.map((place, p) => [place, p]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return order.map(([place, p]) => el("div", "rank-line", place + 1 + ". " + seatName(p, labels) + " — " + result.scores[p] + " points"));
  }

  // The page's data: the JSON the server or the replay writer put in #page-data.
  function pageData() {
    return JSON.parse(document.getElementById("page-data").textContent);
  }

  return { el, card, back, row, table, roundOver, seatName, ranking, pageData };
})();
