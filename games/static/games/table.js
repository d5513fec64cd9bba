/* The table's page: one player's table in one match, played by tapping.

   It holds no card of its own: it draws what the server's JSON gives it (the seat's
   view, which holds only what the seat may see) and sends each move as the command a
   player would type. Inside Telegram (a Mini App) it proves who it is with Telegram's
   signed initData on every request; elsewhere the browser's session does, and a
   change carries the CSRF token. It follows the match by light polling with an ETag,
   and a move sent while the connection is lost is sent again, with the same key, until
   it arrives: the server does it once. Words come from the page (table-config). */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("table-config").textContent);
  var W = config.words;
  var root = document.querySelector("[data-table]");
  var SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  var MAX_WAIT = 15000;

  var tg = null; // Telegram.WebApp, inside Telegram once its script has loaded
  var inTelegram = false;
  var auth = {}; // the header that says who asks, inside Telegram
  var data = null; // the last table the server sent
  var etag = "";
  var selected = ""; // the card chosen to discard or knock with
  var busy = false; // a command is on its way
  var stopped = false; // the server said it will not answer this page (not signed in, no seat)
  var failures = 0;
  var timer = null;
  var clockTimer = null;
  var zoneSent = false;
  var unsent = false; // a move whose answer was lost, being sent again

  function el(selector) { return root.querySelector(selector); }

  function say(template, values) {
    return String(template).replace(/%\((\w+)\)s/g, function (_whole, key) {
      return values && values[key] != null ? String(values[key]) : "";
    });
  }

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  function haptic(kind, style) {
    if (!tg || !tg.HapticFeedback) return;
    try {
      if (kind === "selection") tg.HapticFeedback.selectionChanged();
      else if (kind === "impact") tg.HapticFeedback.impactOccurred(style || "light");
      else tg.HapticFeedback.notificationOccurred(style);
    } catch (e) { /* an older Telegram without it */ }
  }

  /* Cards ------------------------------------------------------------------------ */

  function rank(card) { return card.charAt(0) === "T" ? "10" : card.charAt(0); }

  /* A card as people read it, and its name for a screen reader ("7 of hearts"). */
  function cardNode(card, tag) {
    var node = make(tag || "span", "card " + ("hd".indexOf(card.charAt(1)) >= 0 ? "red" : "black"));
    node.setAttribute("data-card", card);
    var face = make("span", "face");
    face.setAttribute("aria-hidden", "true");
    face.appendChild(document.createTextNode(rank(card)));
    face.appendChild(make("span", "suit", SUITS[card.charAt(1)]));
    node.appendChild(face);
    node.appendChild(make("span", "visually-hidden", cardName(card)));
    if (node.tagName === "BUTTON") node.type = "button";
    return node;
  }

  /* A card's name ("queen of hearts"), from the page's parts in its language. */
  function cardName(card) {
    var named = config.cards.ranks[card.charAt(0)] || rank(card);
    return (config.cards.patterns[card.charAt(1)] || "%(rank)s").replace("%(rank)s", named);
  }

  function cardText(card) { return rank(card) + SUITS[card.charAt(1)]; }

  /* A command as words with its card drawn: "discard 7h" -> "discard 7♥". */
  function commandText(command) {
    return command.replace(/\b([2-9TJQKA])([shdc])\b/g, function (card) { return cardText(card); });
  }

  /* Talking to the server ------------------------------------------------------------- */

  function headers(extra) {
    var all = { Accept: "application/json" };
    Object.keys(auth).forEach(function (key) { all[key] = auth[key]; });
    Object.keys(extra || {}).forEach(function (key) { all[key] = extra[key]; });
    return all;
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: headers({ "Content-Type": "application/json", "X-CSRFToken": config.csrf }),
      body: JSON.stringify(body),
    });
  }

  function newKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  /* The connection works again: the warning goes once no move waits to be sent again. */
  function online() {
    failures = 0;
    if (!unsent) el("[data-net]").hidden = true;
  }

  function offline() {
    failures += 1;
    var net = el("[data-net]");
    net.textContent = W.offline;
    net.hidden = false;
  }

  function wait() {
    if (failures) return Math.min(MAX_WAIT, config.poll_ms * Math.pow(2, failures));
    return document.hidden ? config.poll_ms * 5 : config.poll_ms;
  }

  function schedule(ms) {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(refresh, ms);
  }

  function refresh() {
    clearTimeout(timer);
    var extra = etag ? { "If-None-Match": etag } : {};
    return fetch(config.urls.state, { credentials: "same-origin", cache: "no-store", headers: headers(extra) })
      .then(function (response) {
        online();
        if (response.status === 304) return null;
        return response.json().then(function (body) {
          if (response.status === 200) {
            etag = response.headers.get("ETag") || "";
            show(body);
          } else {
            refused(body);
          }
        });
      }, offline)
      .then(function () { schedule(wait()); }, function () { schedule(wait()); });
  }

  function refused(body) {
    stopped = true;
    setStatus(body.refused && config.refusals[body.refused] ? config.refusals[body.refused] : body.error || W.not_done);
    el("[data-said]").hidden = true;
    haptic("notification", "error");
  }

  /* A command, exactly as typed; sent again after a lost connection with the same key.
     ``done``: what to say once it is done, where the answer says nothing. */
  function play(command, withVersion, done) {
    if (busy || !data) return;
    var version = withVersion === false || !data.table ? null : data.table.version;
    busy = true;
    haptic("impact", "light");
    showSaid(W.sending, false);
    render();
    send({ command: command, version: version, key: newKey() }, 0, done);
  }

  function send(body, attempt, done) {
    post(config.urls.play, body)
      .then(function (response) {
        unsent = false;
        online();
        return response.json().then(function (answer) {
          busy = false;
          if (response.status !== 200 || !answer.done) {
            showSaid(answer.said || (answer.refused ? config.refusals[answer.refused] : "") || answer.error || W.not_done, true);
            haptic("notification", "error");
            if (response.status === 403) stopped = true;
          } else {
            selected = "";
            showSaid(answer.said || done || "", false);
          }
          render();
          return refresh();
        });
      }, function () {
        unsent = true;
        offline();
        setTimeout(function () { send(body, attempt + 1, done); }, Math.min(MAX_WAIT, 1000 * Math.pow(2, attempt)));
      });
  }

  function reportZone() {
    if (zoneSent) return;
    zoneSent = true;
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
    if (zone) post(config.urls.zone, { zone: zone }).catch(function () { zoneSent = false; });
  }

  /* Drawing the table ------------------------------------------------------------------- */

  function setStatus(text) { el("[data-status]").textContent = text; }

  function showSaid(text, isRefusal) {
    var said = el("[data-said]");
    said.textContent = text || "";
    said.hidden = !text;
    said.classList.toggle("refused", !!isRefusal);
  }

  function table() { return data && data.table; }

  function mine() {
    var t = table();
    return t && t.moves.length && t.role !== "sitter" ? t : null;
  }

  function advising() {
    var t = table();
    return t && t.moves.length && t.role === "sitter" ? t : null;
  }

  function allows(move) {
    var t = table();
    return !!(t && !t.paused && t.moves.indexOf(move) >= 0);
  }

  /* What the player (or the sitter, as advice) sends for ``move``. */
  function commandFor(move) { return advising() ? "suggest " + move : move; }

  function show(next) {
    var before = data;
    data = next;
    if (inTelegram && data.language && data.language !== config.language) {
      var url = new URL(window.location.href);
      if (url.searchParams.get("lang") !== data.language) {
        url.searchParams.set("lang", data.language);
        window.location.replace(url.toString());
        return;
      }
    }
    var t = table();
    if (selected && !(t && (allows("discard " + selected) || allows("knock " + selected)))) selected = "";
    var wasMine = before && before.table && before.table.moves.length && before.table.role !== "sitter";
    if (mine() && !wasMine && before) haptic("notification", "success");
    var handChanged = before && before.table && (!t || t.hand !== before.table.hand);
    render();
    if (handChanged) el("[data-result-section]").open = true;
    root.setAttribute("data-version", data.version); // what it shows now: the tests wait on it
    reportZone();
  }

  function render() {
    if (!data) return;
    var t = table();
    el("[data-hand-number]").textContent = t ? say(W.hand, { number: t.hand }) : "";
    setStatus(statusText());
    renderSeats();
    renderMiddle();
    renderSuggestion();
    renderHand();
    renderActions();
    renderTeam();
    renderSoFar();
    renderResult();
    if (tg && tg.BackButton) {
      if (selected) tg.BackButton.show(); else tg.BackButton.hide();
    }
  }

  function statusText() {
    var t = table();
    if (data.status === "lobby") return W.waiting;
    if (!t) return data.winner ? say(W.wins, { name: data.winner }) : W.over;
    if (t.paused) return W.paused;
    if (mine()) return W[t.phase] || W.discard;
    if (advising()) return say(W.advise, { name: t.to_move });
    return say(W.to_move, { name: t.to_move });
  }

  function renderSeats() {
    var list = clear(el("[data-seats]"));
    var t = table();
    data.seats.forEach(function (seat) {
      var item = make("li", "tp-seat");
      if (t && seat.name === t.to_move) item.classList.add("to-move");
      var name = make("bdi", "name", seat.name);
      item.appendChild(name);
      if (seat.position === data.position) item.appendChild(make("span", "muted small", " " + W.you));
      var role = make("span", "tp-role", config.roles[seat.role] || "");
      item.appendChild(role);
      if (seat.is_computer) item.appendChild(make("span", "tag", W.computer));
      else if (seat.autopilot) item.appendChild(make("span", "tag", W.autopilot));
      item.appendChild(make("span", "tp-score", String(seat.score)));
      list.appendChild(item);
    });
  }

  function renderMiddle() {
    var t = table();
    var middle = el("[data-middle]");
    middle.hidden = !t;
    if (!t) return;
    var pile = clear(el("[data-pile]"));
    var pileCard = t.pile_top ? cardNode(t.pile_top, allows("take") ? "button" : "span") : make("span", "card none", "–");
    if (pileCard.tagName === "BUTTON") {
      pileCard.classList.add("big");
      pileCard.setAttribute("aria-describedby", "pile-label");
      pileCard.disabled = busy;
      pileCard.addEventListener("click", function () { play(commandFor("take")); });
    } else {
      pileCard.classList.add("big");
    }
    pile.appendChild(pileCard);
    var stock = clear(el("[data-stock]"));
    var back = make(allows("draw") ? "button" : "span", "card back big");
    back.appendChild(make("span", null, String(t.stock)));
    if (back.tagName === "BUTTON") {
      back.type = "button";
      back.setAttribute("aria-describedby", "stock-label");
      back.disabled = busy;
      back.addEventListener("click", function () { play(commandFor("draw")); });
    }
    stock.appendChild(back);
    tick();
  }

  function tick() {
    var t = table();
    var clock = el("[data-clock]");
    if (!t) return;
    if (t.paused) { clock.textContent = W.paused; return; }
    if (!t.deadline) { clock.textContent = "–"; return; }
    var deadline = new Date(t.deadline);
    var left = Math.max(0, Math.round((deadline - new Date()) / 1000));
    var d = Math.floor(left / 86400), h = Math.floor((left % 86400) / 3600), m = Math.floor((left % 3600) / 60);
    var span = d ? d + "d " + h + "h" : h ? h + "h " + m + "m" : m + ":" + ("0" + (left % 60)).slice(-2);
    var sameDay = deadline.toDateString() === new Date().toDateString();
    var when = "";
    try {
      when = new Intl.DateTimeFormat(config.language, sameDay ? { timeStyle: "short" } : { dateStyle: "short", timeStyle: "short" }).format(deadline);
    } catch (e) { when = deadline.toLocaleString(); }
    clock.textContent = span + " · " + when;
  }

  function renderSuggestion() {
    var t = table();
    var box = clear(el("[data-suggestion]"));
    box.hidden = !(t && t.suggestion && !t.paused);
    if (box.hidden) return;
    if (t.role === "sitter") {
      box.appendChild(make("p", null, say(W.you_suggested, { move: commandText(t.suggestion) })));
      return;
    }
    box.appendChild(make("p", null, say(W.suggests, { move: commandText(t.suggestion) })));
    if (mine()) {
      var accept = make("button", "tp-action primary", say(W.accept, { move: commandText(t.suggestion) }));
      accept.type = "button";
      accept.disabled = busy;
      var accepted = say(W.accepted, { move: commandText(t.suggestion) });
      accept.addEventListener("click", function () { play("accept", true, accepted); });
      box.appendChild(accept);
    }
  }

  function renderHand() {
    var t = table();
    var section = el("[data-hand-section]");
    section.hidden = !(t && t.cards);
    if (section.hidden) return;
    el("[data-hand-title]").textContent = t.role === "sitter" ? say(W.partner_cards, { name: t.cards.owner }) : W.your_cards;
    el("[data-deadwood]").textContent = say(W.deadwood, { count: t.cards.count });
    var holder = clear(el("[data-cards]"));
    var choosing = t.phase === "discard" && t.moves.length > 0;
    function add(parent, card) {
      var playable = choosing && (allows("discard " + card) || allows("knock " + card));
      var node = cardNode(card, playable ? "button" : "span");
      if (playable) {
        node.setAttribute("aria-pressed", selected === card ? "true" : "false");
        node.disabled = busy;
        node.addEventListener("click", function () {
          selected = selected === card ? "" : card;
          haptic("selection");
          render();
          var again = el('[data-cards] [data-card="' + card + '"]');
          if (again) again.focus();
        });
      }
      parent.appendChild(node);
    }
    t.cards.melds.forEach(function (meld) {
      var group = make("span", "meld");
      meld.forEach(function (card) { add(group, card); });
      holder.appendChild(group);
    });
    t.cards.deadwood.forEach(function (card) { add(holder, card); });
  }

  /* A move's button: its words, the card it plays, and for a knock the count left. */
  function actionButton(label, command, card, primary, count) {
    var button = make("button", "tp-action" + (primary ? " primary" : ""));
    button.type = "button";
    button.setAttribute("data-command", command);
    button.appendChild(document.createTextNode(label));
    if (card) {
      button.appendChild(document.createTextNode(" "));
      button.appendChild(make("span", "ltr", cardText(card)));
    }
    if (count != null) button.appendChild(make("span", "tp-count", " (" + count + ")"));
    button.disabled = busy;
    button.addEventListener("click", function () { play(command); });
    return button;
  }

  function renderActions() {
    var bar = clear(el("[data-actions]"));
    var t = mine() || advising();
    bar.hidden = !t || t.paused;
    if (bar.hidden) return;
    if (advising()) bar.appendChild(make("span", "tp-prefix", W.suggest));
    var labels = { take: W.take, draw: W.draw_button, pass: W.pass };
    ["take", "draw", "pass"].forEach(function (move) {
      if (allows(move)) bar.appendChild(actionButton(labels[move], commandFor(move), move === "take" ? t.pile_top : "", move !== "pass"));
    });
    if (t.phase !== "discard") return;
    var knocks = Object.keys(t.knocks).sort(function (a, b) { return t.knocks[a] - t.knocks[b]; });
    if (selected) {
      if (allows("discard " + selected)) bar.appendChild(actionButton(W.discard_button, commandFor("discard " + selected), selected, true));
      if (allows("knock " + selected)) bar.appendChild(actionButton(W.knock_button, commandFor("knock " + selected), selected, false, t.knocks[selected]));
    } else {
      knocks.forEach(function (card) {
        bar.appendChild(actionButton(W.knock_button, commandFor("knock " + card), card, false, t.knocks[card]));
      });
    }
  }

  function renderTeam() {
    var t = table();
    var section = el("[data-team-section]");
    section.hidden = !(t && (t.role === "captain" || t.role === "sitter"));
    if (section.hidden) return;
    var partner = data.seats.filter(function (seat) {
      return seat.position !== data.position && (seat.role === "captain" || seat.role === "sitter");
    })[0];
    el("[data-team-label]").textContent = say(W.team_to, { name: partner ? partner.name : "" });
    var list = clear(el("[data-team]"));
    data.team.forEach(function (line) {
      var item = make("li");
      item.appendChild(make("bdi", "name", line.name));
      item.appendChild(document.createTextNode(": "));
      item.appendChild(make("bdi", null, line.text));
      list.appendChild(item);
    });
  }

  function moveItem(move) {
    var item = make("li", null, say(config.moves[move.action] || "%(name)s " + move.action, { name: move.name }) + " ");
    if (move.card) item.appendChild(cardNode(move.card));
    return item;
  }

  function renderSoFar() {
    var t = table();
    var section = el("[data-so-far-section]");
    section.hidden = !t;
    if (!t) return;
    var list = clear(el("[data-so-far]"));
    if (!data.so_far.length) list.appendChild(make("li", "muted", W.deal));
    data.so_far.forEach(function (move) { list.appendChild(moveItem(move)); });
  }

  function handRow(cards) {
    var row = make("div", "tp-row-cards");
    row.appendChild(make("bdi", "name", cards.owner));
    row.appendChild(document.createTextNode(": "));
    cards.melds.forEach(function (meld) {
      var group = make("span", "meld");
      meld.forEach(function (card) { group.appendChild(cardNode(card)); });
      row.appendChild(group);
    });
    cards.deadwood.forEach(function (card) { row.appendChild(cardNode(card)); });
    row.appendChild(make("span", "muted small", " " + say(W.deadwood, { count: cards.count })));
    return row;
  }

  function renderResult() {
    var result = data.last_result;
    var section = el("[data-result-section]");
    section.hidden = !result;
    if (!result) return;
    var summary = result.summary || {};
    el("[data-result-title]").textContent = say(W.hand, { number: result.number }) + ": " +
      (summary.kind === "draw" ? W.drawn : say(W[summary.kind] || W.knock, { winner: summary.winner, points: summary.points }));
    var body = clear(el("[data-result]"));
    [summary.knocker_cards, summary.defender_cards].forEach(function (cards) { if (cards) body.appendChild(handRow(cards)); });
    if (summary.layoffs && summary.layoffs.length) {
      var laid = make("div", "tp-row-cards", W.laid_off + " ");
      summary.layoffs.forEach(function (card) { laid.appendChild(cardNode(card)); });
      body.appendChild(laid);
    }
    if (!table()) section.open = true;
  }

  /* Team talk ------------------------------------------------------------------------- */

  el("[data-team-form]").addEventListener("submit", function (event) {
    event.preventDefault();
    var input = el("#team-text");
    var text = input.value.trim();
    if (!text) return;
    input.value = "";
    play("team " + text, false);
  });

  /* Inside Telegram ------------------------------------------------------------------------ */

  function telegramData() {
    var match = /(?:^|[#&])tgWebAppData=([^&]*)/.exec(window.location.hash);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function back() {
    selected = "";
    render();
  }

  function startTelegram(then) {
    var script = document.createElement("script");
    script.src = config.telegram_script;
    script.onload = function () {
      tg = window.Telegram && window.Telegram.WebApp;
      if (tg) {
        if (tg.initData) auth.Authorization = "tma " + tg.initData;
        tg.ready();
        tg.expand();
        if (tg.BackButton) tg.BackButton.onClick(back);
      }
      then();
    };
    script.onerror = then; // the hash still says who asks: played without the theme and haptics
    document.head.appendChild(script);
  }

  function start() {
    refresh();
    clockTimer = setInterval(tick, 1000);
    document.addEventListener("visibilitychange", function () { if (!document.hidden && !stopped) refresh(); });
    window.addEventListener("online", function () { if (!stopped) refresh(); });
  }

  var initData = telegramData();
  if (initData) {
    inTelegram = true;
    document.documentElement.classList.add("in-telegram");
    auth.Authorization = "tma " + initData;
    startTelegram(start);
  } else {
    start();
  }
})();
