// termarena's own script. Every page reads without it; it only brings the
// live board to life: a room's frames arrive as Server-Sent Events (the
// screen an SSH watcher sees, as rows of [text, fg, bg, attrs] runs with
// xterm's 256 colours: the whole screen, or the rows that changed since
// the frame before) and are drawn into the <pre data-live> element; and it
// plays replays from their .cast.
"use strict";
(function () {
  function xterm(n) {
    if (typeof n === "string") return n;
    var base = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
      "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"];
    if (n < 16) return base[n];
    if (n < 232) {
      n -= 16;
      var l = [0, 95, 135, 175, 215, 255];
      return "rgb(" + l[Math.floor(n / 36)] + "," + l[Math.floor(n / 6) % 6] + "," + l[n % 6] + ")";
    }
    var g = 8 + (n - 232) * 10;
    return "rgb(" + g + "," + g + "," + g + ")";
  }
  var DEF_FG = "#e5e5e5", DEF_BG = "#000000";
  function draw(pre, rows) {
    var frag = document.createDocumentFragment();
    rows.forEach(function (runs, y) {
      (runs || []).forEach(function (r) {
        var s = document.createElement("span");
        s.textContent = r[0];
        var fg = r[1] < 0 ? DEF_FG : xterm(r[1]), bg = r[2] < 0 ? DEF_BG : xterm(r[2]);
        if (r[3] & 1) { var t = fg; fg = bg; bg = t; }
        s.style.color = fg;
        if (bg !== DEF_BG) s.style.backgroundColor = bg;
        if (r[3] & 4) s.style.fontWeight = "bold";
        if (r[3] & 2) s.style.textDecoration = "underline";
        frag.appendChild(s);
      });
      if (y < rows.length - 1) frag.appendChild(document.createTextNode("\n"));
    });
    pre.replaceChildren(frag);
  }
  function live(pre) {
    var line = document.getElementById("line");
    var es = new EventSource(pre.dataset.live);
    pre.classList.add("on");
    var rows = null;
    es.onmessage = function (e) {
      var f = JSON.parse(e.data);
      if (f.rows) rows = f.rows;
      else if (f.diff && rows) Object.keys(f.diff).forEach(function (y) { rows[+y] = f.diff[y]; });
      else return; // a diff before any whole frame: the next whole one comes
      draw(pre, rows);
      if (line && f.line && line.textContent !== f.line) line.textContent = f.line;
    };
    es.addEventListener("room", function (e) {
      var r = JSON.parse(e.data), a = document.getElementById("tv-room");
      if (a) { a.textContent = "room " + r.id; a.href = r.href; }
    });
    es.addEventListener("wait", function (e) {
      var f = JSON.parse(e.data);
      if (line) line.textContent = f.line;
    });
    es.addEventListener("end", function () {
      es.close();
      if (line) line.textContent += " · the room has closed";
    });
  }
  document.querySelectorAll("pre[data-live]").forEach(live);

  // A small terminal for replays: the room screen's output is cursor
  // moves, erases, SGR colours and text (screen.Render writes no more).
  function Term(w, h) { this.w = w; this.h = h; this.reset(); }
  Term.prototype.reset = function () {
    this.cells = [];
    for (var i = 0; i < this.w * this.h; i++) this.cells.push([" ", -1, -1, 0]);
    this.x = 0; this.y = 0; this.pen = [-1, -1, 0]; this.saved = null; this.esc = "";
  };
  Term.prototype.sgr = function (ps) {
    var p = this.pen;
    if (ps.length === 0) ps = [0];
    for (var i = 0; i < ps.length; i++) {
      var n = ps[i];
      if (n === 0) { p[0] = -1; p[1] = -1; p[2] = 0; }
      else if (n === 1) p[2] |= 4; else if (n === 22) p[2] &= ~4;
      else if (n === 4) p[2] |= 2; else if (n === 24) p[2] &= ~2;
      else if (n === 7) p[2] |= 1; else if (n === 27) p[2] &= ~1;
      else if (n >= 30 && n <= 37) p[0] = n - 30; else if (n >= 90 && n <= 97) p[0] = n - 82;
      else if (n === 39) p[0] = -1;
      else if (n >= 40 && n <= 47) p[1] = n - 40; else if (n >= 100 && n <= 107) p[1] = n - 92;
      else if (n === 49) p[1] = -1;
      else if ((n === 38 || n === 48) && ps[i + 1] === 5) { p[n === 38 ? 0 : 1] = ps[i + 2]; i += 2; }
      else if ((n === 38 || n === 48) && ps[i + 1] === 2) {
        p[n === 38 ? 0 : 1] = "rgb(" + ps[i + 2] + "," + ps[i + 3] + "," + ps[i + 4] + ")"; i += 4;
      }
    }
  };
  Term.prototype.csi = function (seq) {
    var fin = seq[seq.length - 1], body = seq.slice(0, -1);
    if (body[0] === "?") return;
    var ps = body === "" ? [] : body.split(";").map(function (v) { return parseInt(v, 10) || 0; });
    switch (fin) {
      case "H": case "f": this.y = (ps[0] || 1) - 1; this.x = (ps[1] || 1) - 1; break;
      case "C": this.x += ps[0] || 1; break;
      case "D": this.x -= ps[0] || 1; break;
      case "A": this.y -= ps[0] || 1; break;
      case "B": this.y += ps[0] || 1; break;
      case "J": if (ps[0] === 2) for (var i = 0; i < this.cells.length; i++) this.cells[i] = [" ", -1, -1, 0]; break;
      case "K": for (var x = this.x; x < this.w; x++) this.put(x, this.y, " ", [-1, -1, 0]); break;
      case "m": this.sgr(ps); break;
    }
  };
  Term.prototype.put = function (x, y, ch, pen) {
    if (x >= 0 && x < this.w && y >= 0 && y < this.h) this.cells[y * this.w + x] = [ch, pen[0], pen[1], pen[2]];
  };
  Term.prototype.write = function (s) {
    for (var ch of s) {
      if (this.esc !== "") {
        this.esc += ch;
        if (this.esc === "\x1b7") { this.saved = [this.x, this.y, this.pen.slice()]; this.esc = ""; }
        else if (this.esc === "\x1b8") { if (this.saved) { this.x = this.saved[0]; this.y = this.saved[1]; this.pen = this.saved[2].slice(); } this.esc = ""; }
        else if (this.esc.length >= 2 && this.esc[1] !== "[") this.esc = "";
        else if (this.esc.length > 2 && ch >= "@" && ch <= "~") { this.csi(this.esc.slice(2)); this.esc = ""; }
        continue;
      }
      if (ch === "\x1b") this.esc = ch;
      else if (ch === "\r") this.x = 0;
      else if (ch === "\n") this.y++;
      else if (ch >= " ") { this.put(this.x, this.y, ch, this.pen); this.x++; }
    }
  };
  Term.prototype.rows = function () {
    var rows = [];
    for (var y = 0; y < this.h; y++) {
      var runs = [], cur = null;
      for (var x = 0; x < this.w; x++) {
        var c = this.cells[y * this.w + x];
        if (!cur || cur[1] !== c[1] || cur[2] !== c[2] || cur[3] !== c[3]) { cur = ["", c[1], c[2], c[3]]; runs.push(cur); }
        cur[0] += c[0];
      }
      rows.push(runs);
    }
    return rows;
  };

  function fmt(t) {
    var s = Math.floor(t);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text) e.textContent = text;
    return e;
  }

  // The replay player: the match's .cast played in the page (play, pause,
  // seek, speed), on the terminal above.
  function player(pre) {
    fetch(pre.dataset.cast).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).then(function (text) {
      var lines = text.split("\n").filter(function (l) { return l !== ""; });
      var head = JSON.parse(lines[0]);
      var evs = lines.slice(1).map(function (l) { return JSON.parse(l); });
      var dur = evs.length ? evs[evs.length - 1][0] : 0;
      var term = new Term(head.width, head.height);
      var at = 0, next = 0, playing = false, speed = 1, last = 0;
      var bar = el("div", { "class": "controls", role: "group", "aria-label": "replay controls" });
      var play = el("button", { type: "button", id: "play" }, "Play");
      var seek = el("input", { type: "range", id: "seek", min: "0", max: String(dur), step: "0.1", value: "0", "aria-label": "position" });
      var clock = el("span", { id: "clock" }, "0:00 / " + fmt(dur));
      var sp = el("select", { id: "speed", "aria-label": "speed" });
      [0.5, 1, 2, 4, 8].forEach(function (v) { var o = el("option", { value: String(v) }, v + "×"); if (v === 1) o.selected = true; sp.appendChild(o); });
      bar.append(play, seek, clock, sp);
      pre.after(bar);
      function to(t) {
        if (t < at) { term.reset(); next = 0; }
        while (next < evs.length && evs[next][0] <= t) { term.write(evs[next][2]); next++; }
        at = t;
        draw(pre, term.rows());
        seek.value = String(t);
        clock.textContent = fmt(t) + " / " + fmt(dur);
        pre.dataset.at = t.toFixed(1);
      }
      function tick(now) {
        if (!playing) return;
        var t = Math.min(dur, at + (now - last) / 1000 * speed);
        last = now;
        to(t);
        if (t >= dur) { playing = false; play.textContent = "Play"; return; }
        requestAnimationFrame(tick);
      }
      play.addEventListener("click", function () {
        playing = !playing;
        play.textContent = playing ? "Pause" : "Play";
        if (playing) { if (at >= dur) to(0); last = performance.now(); requestAnimationFrame(tick); }
      });
      seek.addEventListener("input", function () {
        var v = parseFloat(seek.value);
        to(v >= dur - 0.1 ? dur : v); // the slider's steps stop short of the end
      });
      sp.addEventListener("change", function () { speed = parseFloat(sp.value); });
      to(0);
    }).catch(function () { pre.textContent = "The replay could not be loaded; download it below."; });
  }
  document.querySelectorAll("pre[data-cast]").forEach(player);
})();
