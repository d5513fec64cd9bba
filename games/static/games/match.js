/* The match page's script: replays, the deck check and the live table.
   The page works without it: every move is listed, the commitment can be
   checked by hand, and a reload shows the table. Nothing here can show a
   hidden card: it only draws what the server's public views put on the page. */
(function () {
  "use strict";

  var SUITS = { s: ["♠", "black"], h: ["♥", "red"], d: ["♦", "red"], c: ["♣", "black"] };

  var cardWordsData = document.getElementById("card-words");
  var cardWords = cardWordsData ? JSON.parse(cardWordsData.textContent) : { ranks: {}, patterns: {} };

  function attribute(text) {
    return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  }

  /* A card's name ("queen of hearts") as the page's own cards carry it in their title. */
  function cardName(text, rank) {
    var named = cardWords.ranks[text.charAt(0)] || rank;
    return (cardWords.patterns[text.charAt(1)] || "%(rank)s").replace("%(rank)s", named);
  }

  function cardHtml(text, highlight) {
    if (!text) return '<span class="card none">–</span>';
    var rank = text.charAt(0) === "T" ? "10" : text.charAt(0);
    var suit = SUITS[text.charAt(1)];
    return '<span class="card ' + suit[1] + (highlight ? " hl" : "") + '" data-card="' + text + '" title="' +
      attribute(cardName(text, rank)) + '">' + rank + '<span class="suit">' + suit[0] + "</span></span>";
  }

  function cardsHtml(list, highlight) {
    return list.map(function (card) { return cardHtml(card, card === highlight); }).join("");
  }

  /* Replays ------------------------------------------------------------------ */

  var replayData = document.getElementById("replays");
  var replays = replayData ? JSON.parse(replayData.textContent) : {};

  document.querySelectorAll("[data-replay]").forEach(function (box) {
    var data = replays[box.getAttribute("data-replay")];
    if (!data) return;
    var details = box.closest("article.hand");
    var list = details.querySelectorAll("[data-steps] > li");
    var count = data.steps.length + (details.querySelector("[data-end]") ? 1 : 0);
    var at = 0;

    function show(index) {
      at = Math.max(0, Math.min(count - 1, index));
      var step = data.steps[Math.min(at, data.steps.length - 1)];
      var highlight = at < data.steps.length ? step.card : "";
      box.querySelector('[data-hand="box"]').innerHTML = cardsHtml(step.box, highlight);
      box.querySelector('[data-hand="captain"]').innerHTML = cardsHtml(step.captain, highlight);
      box.querySelector("[data-top]").innerHTML = cardHtml(step.top);
      box.querySelector("[data-stock-count]").textContent = String(step.stock);
      var said = list[at];
      if (said && said.hasAttribute("data-said")) box.querySelector("[data-said]").textContent = said.getAttribute("data-said");
      else box.querySelector("[data-said]").innerHTML = said ? said.innerHTML : "";
      box.querySelector("[data-where]").textContent = (at + 1) + " / " + count;
      box.setAttribute("data-step", String(at));
    }

    var moves = { first: function () { return 0; }, prev: function () { return at - 1; },
      next: function () { return at + 1; }, last: function () { return count - 1; } };
    box.querySelectorAll("[data-go]").forEach(function (button) {
      button.addEventListener("click", function () { show(moves[button.getAttribute("data-go")]()); });
    });
    /* The arrows step wherever the reader is on the page (it scrolls up and down,
       never sideways), unless he is typing in a field or holds a modifier (Alt+←
       is the browser's Back); Home and End jump once the replay has the focus,
       and otherwise scroll the page as they always do. */
    document.addEventListener("keydown", function (event) {
      var keys = { ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last" };
      var go = keys[event.key];
      if (!go || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      var target = event.target;
      if (target.closest && target.closest("input, select, textarea, [contenteditable]")) return;
      if ((go === "first" || go === "last") && !box.contains(target)) return;
      if (document.documentElement.dir === "rtl" && (go === "next" || go === "prev")) {
        go = go === "next" ? "prev" : "next";
      }
      event.preventDefault();
      show(moves[go]());
    });
    box.hidden = false;
    /* The replay shows the moves one by one; the whole list stays open only where the
       review marked a move, which folded away went unseen. */
    var all = details.querySelector("details.all-moves");
    all.open = all.querySelector("[data-review]") !== null;
    show(0);
  });

  /* The deck commitment: SHA-256 of "salt:deck", computed here ---------------- */

  function hex(bytes) {
    return Array.prototype.map.call(new Uint8Array(bytes), function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  /* For pages served without TLS (crypto.subtle exists only on secure origins). */
  function sha256Fallback(text) {
    var K = [], H = [], i, j;
    function frac(x) { return ((x - Math.floor(x)) * 4294967296) | 0; }
    for (var n = 2, found = 0; found < 64; n++) {
      var prime = true;
      for (j = 2; j * j <= n; j++) if (n % j === 0) { prime = false; break; }
      if (prime) { if (found < 8) H[found] = frac(Math.pow(n, 1 / 2)); K[found++] = frac(Math.pow(n, 1 / 3)); }
    }
    var bytes = Array.from(new TextEncoder().encode(text)), bits = bytes.length * 8;
    bytes.push(0x80);
    while (bytes.length % 64 !== 56) bytes.push(0);
    for (i = 7; i >= 0; i--) bytes.push(i > 3 ? 0 : (bits >>> (i * 8)) & 255);
    function rot(x, r) { return (x >>> r) | (x << (32 - r)); }
    for (i = 0; i < bytes.length; i += 64) {
      var w = [], a = H.slice();
      for (j = 0; j < 64; j++) {
        if (j < 16) {
          w[j] = (bytes[i + 4 * j] << 24) | (bytes[i + 4 * j + 1] << 16) | (bytes[i + 4 * j + 2] << 8) | bytes[i + 4 * j + 3];
        } else {
          var s0 = rot(w[j - 15], 7) ^ rot(w[j - 15], 18) ^ (w[j - 15] >>> 3);
          var s1 = rot(w[j - 2], 17) ^ rot(w[j - 2], 19) ^ (w[j - 2] >>> 10);
          w[j] = (w[j - 16] + s0 + w[j - 7] + s1) | 0;
        }
        var t1 = (a[7] + (rot(a[4], 6) ^ rot(a[4], 11) ^ rot(a[4], 25)) + ((a[4] & a[5]) ^ (~a[4] & a[6])) + K[j] + w[j]) | 0;
        var t2 = ((rot(a[0], 2) ^ rot(a[0], 13) ^ rot(a[0], 22)) + ((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]))) | 0;
        a = [(t1 + t2) | 0, a[0], a[1], a[2], (a[3] + t1) | 0, a[4], a[5], a[6]];
      }
      for (j = 0; j < 8; j++) H[j] = (H[j] + a[j]) | 0;
    }
    return H.map(function (x) { return ("0000000" + (x >>> 0).toString(16)).slice(-8); }).join("");
  }

  function sha256(text) {
    if (window.crypto && window.crypto.subtle && window.isSecureContext) {
      return window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(hex);
    }
    return Promise.resolve(sha256Fallback(text));
  }
  window.gin3Sha256Fallback = sha256Fallback;

  document.querySelectorAll(".verify-box").forEach(function (box) {
    var out = box.querySelector("[data-verify]");
    var again = box.querySelector("[data-check]");
    function check() {
      var salt = box.querySelector("[data-salt]").textContent.trim();
      var deck = box.querySelector("[data-deck]").textContent.trim();
      var expected = box.querySelector("[data-commitment]").textContent.trim();
      out.className = "verify";
      out.textContent = out.getAttribute("data-checking");
      return sha256(salt + ":" + deck).then(function (digest) {
        var ok = digest === expected;
        out.className = "verify " + (ok ? "ok" : "bad");
        out.setAttribute("data-result", ok ? "match" : "mismatch");
        out.textContent = (ok ? "✓ " : "✗ ") + out.getAttribute(ok ? "data-ok" : "data-bad");
      });
    }
    again.hidden = false;
    again.addEventListener("click", check);
    check();
  });

  /* The live table: light polling of a small JSON document ------------------- */

  var live = document.querySelector("[data-live]");
  if (!live) return;
  var url = live.getAttribute("data-live");
  var version = live.getAttribute("data-version");
  var handNumber = live.getAttribute("data-hand");
  var clock = live.querySelector("[data-clock]");
  var roleNames = {};
  document.querySelectorAll("[data-seats] tr[data-position]").forEach(function (row) {
    var role = row.querySelector("[data-role]").textContent.trim();
    if (role) roleNames[role] = role;
  });
  var delay = 2000;

  function tick() {
    var deadline = clock.getAttribute("data-deadline");
    if (!deadline || clock.getAttribute("data-paused") === "1") return;
    var left = Math.max(0, Math.round((new Date(deadline) - new Date()) / 1000));
    var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    clock.textContent = (h ? h + ":" + ("0" + m).slice(-2) : m) + ":" + ("0" + s).slice(-2);
  }

  function moveHtml(move, labels) {
    var text = (labels[move.action] || "%(name)s " + move.action).replace("%(name)s", move.name);
    var li = document.createElement("li");
    li.textContent = text + " ";
    if (move.card) li.insertAdjacentHTML("beforeend", cardHtml(move.card));
    var note = labels["note:" + move.automatic];
    if (note) {
      var small = document.createElement("span");
      small.className = "muted small";
      small.textContent = note;
      li.appendChild(document.createTextNode(" "));
      li.appendChild(small);
    }
    return li;
  }

  var labels = JSON.parse(document.getElementById("move-words") ? document.getElementById("move-words").textContent : "{}");

  function apply(data) {
    if (data.status !== "running" || !data.table || String(data.table.hand_number) !== handNumber) {
      window.location.reload();
      return;
    }
    var t = data.table;
    live.querySelector("[data-pile]").innerHTML = cardHtml(t.pile_top);
    live.querySelector("[data-stock]").textContent = t.stock_count;
    live.querySelector("[data-to-move]").textContent = t.to_move;
    live.querySelector("[data-to-move-role]").textContent = labels["role:" + t.to_move_role] || t.to_move_role;
    clock.setAttribute("data-deadline", t.deadline || "");
    clock.setAttribute("data-paused", t.paused ? "1" : "0");
    if (t.paused) clock.textContent = clock.getAttribute("data-paused-text");
    var list = live.querySelector("[data-moves]");
    list.innerHTML = "";
    t.moves.forEach(function (move) { list.appendChild(moveHtml(move, labels)); });
    t.seats.forEach(function (seat) {
      var row = document.querySelector('[data-seats] tr[data-position="' + seat.position + '"]');
      if (!row) return;
      row.querySelector("[data-score]").textContent = seat.score;
      row.querySelector("[data-role]").textContent = labels["role:" + seat.role] || seat.role;
    });
    version = String(data.version);
    live.setAttribute("data-version", version);
  }

  function poll() {
    if (document.hidden) { setTimeout(poll, delay); return; }
    fetch(url + "?v=" + encodeURIComponent(version), { cache: "no-store", headers: { "If-None-Match": '"' + version + '"' } })
      .then(function (response) {
        delay = 2000;
        if (response.status === 200) return response.json().then(apply);
        if (response.status !== 304) delay = 10000;
      })
      .catch(function () { delay = 10000; })
      .then(function () { setTimeout(poll, delay); });
  }

  tick();
  setInterval(tick, 1000);
  setTimeout(poll, delay);
})();
