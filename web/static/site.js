// termarena's own script. Every page reads without it; it only brings the
// live board to life: a room's frames arrive as Server-Sent Events (the
// screen an SSH watcher sees, as rows of [text, fg, bg, attrs] runs with
// xterm's 256 colours) and are drawn into the <pre data-live> element.
"use strict";
(function () {
  function xterm(n) {
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
    es.onmessage = function (e) {
      var f = JSON.parse(e.data);
      draw(pre, f.rows);
      if (line && f.line && line.textContent !== f.line) line.textContent = f.line;
    };
    es.addEventListener("room", function (e) {
      var r = JSON.parse(e.data), a = document.getElementById("tv-room");
      if (a) { a.textContent = "room " + r.id + " · " + r.label; a.href = r.href; }
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
})();
