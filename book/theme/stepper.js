// oneloop's stepper: recorded turns of the loop, one at a time, inside the book.
//
// A page asks for a view with an element such as
//   <div class="oneloop-stepper" data-demo="gather_sleeps"></div>
// The recording is a script in stepper/data/ (written by `cargo course figures`) that
// assigns its JSON to window.ONELOOP_RECORDINGS; a script tag loads it, which works
// over file:// where fetch() does not. This file only reads the recordings.
//
// Keys, while a stepper has focus: right arrow next, left arrow previous, space
// play or pause, Home first, End last. A link such as #gather_sleeps/turn-6 opens
// the stepper of that demo at turn 6 (#gather_sleeps/turn-6/run: in the recorded run
// view; /parts: in what it is made of); `?open=gather_sleeps/turn-6` does the same,
// `&alone` moves that stepper to the top of the page, and `&predict` opens the
// question about the next turn. Predict mode asks, before each turn with a choice,
// which handle will run first, and keeps the score; for a Node recording it asks, line
// by line, in which phase the line is printed (data-quiz="order": which line comes
// next), answered with the number keys. data-predict on the element opens a stepper in
// predict mode (chapter 8's quizzes). Where the recording holds CPython's run of the
// same program, the step view shows CPython's handles for the same turn, with the
// differences the truth suite declares marked. A demo shown twice on one page (the
// print page holds every chapter) has the ids #gather_sleeps, #gather_sleeps-2, ..., and
// each copy's link names its own. `?selftest` in the address checks every
// stepper on the page against its recording and writes the result into the page.
(function () {
  "use strict";

  var errors = [];
  window.addEventListener("error", function (event) {
    errors.push(String(event.message || event.type));
  });
  var consoleError = console.error;
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, " "));
    return consoleError.apply(console, arguments);
  };

  var root = typeof path_to_root === "string" ? path_to_root : "";
  var steppers = [];
  var pulses = [];

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") {
        node.textContent = attrs[key];
      } else {
        node.setAttribute(key, attrs[key]);
      }
    });
    (children || []).forEach(function (child) {
      if (child) {
        node.appendChild(child);
      }
    });
    return node;
  }

  // Durations as the terminal stepper prints them: 0, 350 µs, 12.5 ms, 1.2 s.
  function human(us) {
    if (us === 0) {
      return "0";
    }
    var trim = function (text) {
      return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, "");
    };
    if (us >= 1e6) {
      return trim((us / 1e6).toFixed(3)) + " s";
    }
    if (us >= 1e3) {
      return trim((us / 1e3).toFixed(1)) + " ms";
    }
    return trim(us.toFixed(1)) + " µs";
  }

  function timeoutText(turn) {
    return turn.timeout_us === null ? "none (wait for an event)" : human(turn.timeout_us);
  }

  // Loads stepper/data/<name>.js once; calls back when it has assigned its data.
  var loading = {};
  function load(name, done) {
    var have = window.ONELOOP_RECORDINGS && window.ONELOOP_RECORDINGS[name];
    if (have) {
      done(have);
      return;
    }
    if (loading[name]) {
      loading[name].push(done);
      return;
    }
    loading[name] = [done];
    var script = el("script", { src: root + "stepper/data/" + name + ".js" });
    script.onload = function () {
      var data = window.ONELOOP_RECORDINGS && window.ONELOOP_RECORDINGS[name];
      if (!data) {
        console.error("oneloop stepper: " + name + ".js assigned no recording");
      }
      loading[name].forEach(function (callback) {
        callback(data || null);
      });
    };
    script.onerror = function () {
      console.error("oneloop stepper: could not load the recording " + name);
      loading[name].forEach(function (callback) {
        callback(null);
      });
    };
    document.head.appendChild(script);
  }

  // The lane a ready-queue label belongs to: the lane of a handle with that label.
  function laneOfLabel(data) {
    var lanes = {};
    data.turns.forEach(function (turn) {
      turn.handles.forEach(function (handle) {
        if (!(handle.label in lanes)) {
          lanes[handle.label] = handle.lane;
        }
      });
    });
    data.lanes.forEach(function (lane, index) {
      if (lane.task && !(lane.task in lanes)) {
        lanes[lane.task] = index;
      }
    });
    return lanes;
  }

  function chip(data, laneIndex, text, title) {
    var lane = data.lanes[laneIndex];
    var node = el("span", { class: "ol-chip", text: text });
    if (lane) {
      node.style.borderLeftColor = lane.colour;
      node.setAttribute("data-lane", lane.key);
    }
    if (title) {
      node.title = title;
    }
    return node;
  }

  function Stepper(host, data) {
    this.host = host;
    this.data = data;
    this.turn = 0;
    // -1: the whole turn; 0..n-1: the handle reached in handle-by-handle mode.
    this.sub = -1;
    this.subMode = false;
    this.timer = null;
    this.labels = laneOfLabel(data);
    // Predict mode: the question asked before a turn is shown, and the score so far.
    this.predict = false;
    this.asking = null;
    // Node's predict mode: how many lines of the phase shown are revealed (null: all),
    // and what it asks: in which phase a line is printed, or which line comes next.
    this.hideFrom = null;
    this.quiz = host.getAttribute("data-quiz") === "order" ? "order" : "phase";
    this.allLines = [];
    data.turns.forEach(function (turn, t) {
      turn.handles.forEach(function (handle, h) {
        this.allLines.push({ turn: t, index: h, label: handle.label });
      }, this);
    }, this);
    this.score = { right: 0, asked: 0 };
    this.build();
    if (host.hasAttribute("data-predict")) {
      this.setPredict(true);
    } else {
      this.show();
    }
  }

  Stepper.prototype.build = function () {
    var self = this;
    var data = this.data;
    var host = this.host;
    host.textContent = "";
    host.id = host.id || data.name;
    host.setAttribute("tabindex", "0");
    host.setAttribute("role", "group");
    host.setAttribute("aria-label", "stepper: " + data.title);
    host.setAttribute("data-turns", String(data.turns.length));
    var unit = data.loop === "node" ? "phase" : "turn";
    this.unit = unit;

    var button = function (text, label, action) {
      var node = el("button", { type: "button", class: "ol-button", "aria-label": label, text: text });
      node.addEventListener("click", function () {
        action();
        host.focus();
      });
      return node;
    };
    this.playButton = button("▶ play", "play or pause (space)", function () {
      self.togglePlay();
    });
    this.subBox = el("input", { type: "checkbox", class: "ol-sub" });
    this.subBox.addEventListener("change", function () {
      self.setSubMode(self.subBox.checked);
    });
    this.predictBox = el("input", { type: "checkbox", class: "ol-predict" });
    this.predictBox.addEventListener("change", function () {
      self.setPredict(self.predictBox.checked);
    });
    this.position = el("span", { class: "ol-position" });
    this.link = el("a", { class: "ol-link", text: "link to this " + unit });
    var note = data.clock === "real" ? " One sample run on the real clock." : "";

    this.tabs = el("div", { class: "ol-tabs", role: "tablist" });
    this.panels = {};
    var views = [
      ["step", "Turn, step by step"],
      ["run", "Recorded run"],
      ["parts", "What it is made of"]
    ];
    if (data.loop === "node") {
      views[0][1] = "Phase, step by step";
      views.pop();
    }
    views.forEach(function (view) {
      var tab = el("button", { type: "button", role: "tab", class: "ol-tab", "data-view": view[0], text: view[1] });
      tab.addEventListener("click", function () {
        self.selectView(view[0]);
      });
      self.tabs.appendChild(tab);
      self.panels[view[0]] = el("div", { class: "ol-panel", role: "tabpanel", "data-view": view[0] });
    });

    this.controls = el("div", { class: "ol-controls" }, [
      button("« first", "first " + unit + " (Home)", function () {
        self.go(0, -1);
      }),
      button("◀ prev", "previous " + unit + " (left arrow)", function () {
        self.prev();
      }),
      this.playButton,
      button("next ▶", "next " + unit + " (right arrow)", function () {
        self.next();
      }),
      button("last »", "last " + unit + " (End)", function () {
        self.go(data.turns.length - 1, -1);
      }),
      data.loop === "node" ? null : el("label", { class: "ol-sub-label" }, [this.subBox, document.createTextNode(" handle by handle")]),
      el("label", { class: "ol-predict-label" }, [this.predictBox, document.createTextNode(" predict")]),
      this.position,
      this.link
    ]);

    // The step view: the turn's phases, what ran, and what the loop held.
    this.phases = el("ol", { class: "ol-phases" });
    this.ran = el("ol", { class: "ol-handles" });
    this.held = el("div", { class: "ol-held" });
    this.question = el("div", { class: "ol-question", role: "group", "aria-label": "predict the next " + unit });
    this.question.hidden = true;
    this.scoreText = el("span", { class: "ol-score" });
    this.panels.step.appendChild(this.question);
    this.panels.step.appendChild(this.phases);
    this.panels.step.appendChild(el("div", { class: "ol-caption", text: "ran, in order:" }));
    this.panels.step.appendChild(this.ran);
    if (data.cpython) {
      this.buildCpython();
    }
    this.panels.step.appendChild(this.held);

    this.buildRun();
    if (this.panels.parts) {
      this.buildParts();
    }

    this.live = el("p", { class: "ol-live", "aria-live": "polite" });
    host.appendChild(el("div", { class: "ol-title" }, [
      el("strong", { text: data.title }),
      el("span", { class: "ol-about", text: " (" + data.about + ")" + note })
    ]));
    host.appendChild(this.tabs);
    host.appendChild(this.controls);
    Object.keys(this.panels).forEach(function (key) {
      host.appendChild(self.panels[key]);
    });
    host.appendChild(this.live);
    host.addEventListener("keydown", function (event) {
      self.key(event);
    });
    this.selectView("step");
  };

  Stepper.prototype.selectView = function (view) {
    var self = this;
    this.view = view;
    Array.prototype.forEach.call(this.tabs.children, function (tab) {
      var on = tab.getAttribute("data-view") === view;
      tab.setAttribute("aria-selected", on ? "true" : "false");
    });
    Object.keys(this.panels).forEach(function (key) {
      self.panels[key].hidden = key !== view;
    });
    this.centreColumn();
  };

  // Scrolls the recorded run so that the current turn's column is in sight.
  Stepper.prototype.centreColumn = function () {
    var column = this.columns && this.columns[this.turn];
    if (this.view !== "run" || !column) {
      return;
    }
    var strip = column.parentNode;
    strip.scrollLeft = Math.max(0, column.offsetLeft - strip.offsetLeft - strip.clientWidth / 2);
  };

  // The recorded run: one column per turn, its handles stacked in their lanes'
  // colours; the current turn is marked and a click jumps there.
  Stepper.prototype.buildRun = function () {
    var self = this;
    var data = this.data;
    var strip = el("div", { class: "ol-strip" });
    this.columns = data.turns.map(function (turn, index) {
      var column = el("button", {
        type: "button",
        class: "ol-column",
        "data-turn": String(index + 1),
        "aria-label": self.unit + " " + turn.title + ": " + turn.handles.length + " handle(s)"
      });
      if (turn.parked_us > 0) {
        column.appendChild(el("span", { class: "ol-column-park", title: "parked " + human(turn.parked_us) }));
      }
      turn.handles.forEach(function (handle) {
        var cell = el("span", { class: "ol-cell", title: handle.label });
        cell.style.background = data.lanes[handle.lane].colour;
        column.appendChild(cell);
      });
      column.appendChild(el("span", { class: "ol-column-title", text: turn.title }));
      column.addEventListener("click", function () {
        self.go(index, -1);
        self.selectView("step");
        self.host.focus();
      });
      strip.appendChild(column);
      return column;
    });
    // The SVG figure beside the stepper, when it draws these same turns: the current
    // turn is marked on it, and a click on a column steps there.
    this.hits = [];
    if (data.figure) {
      var figure = el("div", { class: "ol-figure" });
      figure.appendChild(el("img", { class: "ol-figure-img", src: root + data.figure.file, alt: "the recorded run as a timeline: " + data.title }));
      this.marker = el("div", { class: "ol-figure-marker" });
      figure.appendChild(this.marker);
      var width = data.figure.width;
      data.figure.columns.forEach(function (column, index) {
        var hit = el("button", {
          type: "button",
          class: "ol-figure-hit",
          tabindex: "-1",
          "data-turn": String(index + 1),
          "aria-label": self.unit + " " + data.turns[index].title
        });
        hit.style.left = (column[0] / width) * 100 + "%";
        hit.style.width = ((column[1] - column[0]) / width) * 100 + "%";
        hit.addEventListener("click", function () {
          self.go(index, -1);
          self.host.focus();
        });
        figure.appendChild(hit);
        self.hits.push(hit);
      });
      this.panels.run.appendChild(figure);
    }
    var legend = el("div", { class: "ol-legend" });
    data.lanes.forEach(function (lane, index) {
      legend.appendChild(chip(data, index, lane.name));
    });
    this.panels.run.appendChild(el("p", { class: "ol-caption", text: "every " + this.unit + " of the run, marked where the stepper is; below, one column per " + this.unit + " (hatched: a park; each block: a handle). Click a column to step there." }));
    this.panels.run.appendChild(strip);
    this.panels.run.appendChild(legend);
  };

  // The loop's parts with the names they have in oneloop's code; the parts this turn
  // touched light up.
  Stepper.prototype.buildParts = function () {
    var layers = {};
    this.data.turns.forEach(function (turn) {
      if (turn.before) {
        turn.before.registrations.forEach(function (entry) {
          layers[entry.layer] = true;
        });
      }
    });
    var parts = [
      ["ready", "ready queue", "ReadyQueue (stage 4): handles to run, oldest first"],
      ["timers", "timer heap", "Timers and TimerHeap (stage 5): deadlines, earliest first"],
      ["io", "selector", "Io and IoDriver over mio's Poll (stage 6): readiness events"],
      ["offload", "thread-safe inbox", "Offload and ThreadPool (stage 7): results sent back from worker threads"],
      ["tasks", "task slab", "Tasks (stage 3): each task's future, stepped by a handle"]
    ];
    var box = el("div", { class: "ol-parts" });
    this.parts = {};
    var self = this;
    parts.forEach(function (part) {
      if ((part[0] === "io" || part[0] === "offload") && !layers[part[0]]) {
        return;
      }
      var node = el("div", { class: "ol-part", "data-part": part[0] }, [
        el("strong", { text: part[1] }),
        el("span", { class: "ol-part-about", text: part[2] }),
        el("span", { class: "ol-part-now" })
      ]);
      self.parts[part[0]] = node;
      box.appendChild(node);
    });
    this.panels.parts.appendChild(el("p", { class: "ol-caption", text: "what moves where: a due timer's handle, a readiness event and what another thread sends through the thread-safe inbox go into the ready queue; a waker pushes a task's step there; the run phase takes the handles queued when it began. The arrows of the turn shown are lit." }));
    this.panels.parts.appendChild(this.buildArrows(layers));
    this.panels.parts.appendChild(box);
    this.moves = el("ul", { class: "ol-moves" });
    this.panels.parts.appendChild(el("div", { class: "ol-caption", text: "what moved in this turn:" }));
    this.panels.parts.appendChild(this.moves);
  };

  // CPython's column: the same program run on CPython (a truth scenario's script),
  // its handles for the turn shown, with the differences the truth suite declares marked.
  Stepper.prototype.buildCpython = function () {
    var cpython = this.data.cpython;
    var about = cpython.differences.map(function (difference) {
      return difference.name + " (" + difference.removes + "): " + difference.about;
    });
    this.cpythonList = el("ol", { class: "ol-cpython-turns" });
    this.panels.step.appendChild(el("div", { class: "ol-cpython" }, [
      el("div", { class: "ol-caption", text: "CPython " + cpython.python + " ran, in the same turn (" + cpython.script + (cpython.section ? ", section " + cpython.section : "") + "):" }),
      this.cpythonList,
      el("p", { class: "ol-caption ol-cpython-note", text: about.length ? "Marked ✗: a difference the truth suite declares. " + about.join(" ") : "The truth suite declares no difference for this program: the same handles, turn for turn." })
    ]));
  };

  // CPython's turns shown beside turn `index`: the one matched to it, after any that
  // match no oneloop turn since the previous match; the last turn also gets those after.
  Stepper.prototype.cpythonTurns = function (index) {
    var shown = [];
    var unmatched = [];
    this.data.cpython.turns.forEach(function (turn) {
      if (turn.oneloop_turn === null) {
        unmatched.push(turn);
        return;
      }
      if (turn.oneloop_turn === index + 1) {
        shown = unmatched.concat([turn]);
      }
      unmatched = [];
    });
    return index === this.data.turns.length - 1 ? shown.concat(unmatched) : shown;
  };

  Stepper.prototype.showCpython = function () {
    var self = this;
    this.cpythonList.textContent = "";
    this.cpythonTurns(this.turn).forEach(function (turn) {
      var items = turn.handles.map(function (handle) {
        var lane = self.cpythonLane(handle.name);
        var chipNode = lane === undefined ? el("span", { class: "ol-chip", text: handle.name }) : chip(self.data, lane, handle.name);
        return el("li", { class: "ol-cp-handle" + (handle.removed_by ? " ol-cp-removed" : ""), "data-name": handle.name }, [
          chipNode,
          handle.removed_by ? el("span", { class: "ol-cp-mark", text: " ✗ " + handle.removed_by }) : null
        ]);
      });
      self.cpythonList.appendChild(el("li", { class: "ol-cp-turn" + (turn.oneloop_turn === null ? " ol-cp-unmatched" : ""), "data-cpython-turn": String(turn.number) }, [
        el("strong", { text: "CPython turn " + turn.number }),
        turn.why ? el("span", { class: "ol-cp-why", text: " (" + turn.why + ")" }) : null,
        el("ul", { class: "ol-list" }, items)
      ]));
    });
  };

  // The lane of a CPython handle: the oneloop lane of the handle run in its place,
  // matched by position in the same turn.
  Stepper.prototype.cpythonLane = function (name) {
    var turn = this.data.turns[this.turn];
    var matched = this.data.cpython.turns.filter(function (cp) {
      return cp.oneloop_turn === turn.number;
    })[0];
    if (!matched) {
      return undefined;
    }
    var kept = matched.handles.filter(function (handle) {
      return !handle.removed_by;
    });
    for (var i = 0; i < kept.length; i++) {
      if (kept[i].name === name && turn.handles[i]) {
        return turn.handles[i].lane;
      }
    }
    return undefined;
  };

  // The handles that reached the ready queue during the park from each source, counted
  // from the recording: due timers, readiness events, and (the rest of what arrived)
  // the thread-safe inbox, drained while the loop was parked.
  function arrivals(turn) {
    var arrived = Math.max(0, turn.handles.length - turn.before.ready.length);
    return {
      timers: turn.timers_moved,
      io: turn.io_events,
      inbox: Math.max(0, arrived - turn.timers_moved - turn.io_events)
    };
  }

  // The arrows of "what it is made of", lit by the turn shown: what moved where.
  var ARROWS = [
    ["io", "readiness event", [95, 48], [170, 120]],
    ["timers", "due timer's handle", [320, 48], [265, 120]],
    ["inbox", "call_soon_threadsafe", [545, 48], [300, 120]],
    ["run", "ntodo handles", [310, 132], [440, 132]],
    ["wake", "waker's push, call_soon", [440, 148], [310, 148]],
    ["poll", "poll the future", [525, 156], [525, 204]]
  ];
  var BOXES = [
    ["io", "selector (mio Poll)", 10, 12, 170],
    ["timers", "timer heap", 235, 12, 170],
    ["offload", "thread-safe inbox", 460, 12, 170],
    ["ready", "ready queue", 110, 120, 200],
    ["run", "run phase", 440, 120, 170],
    ["tasks", "task slab", 440, 204, 170]
  ];

  Stepper.prototype.buildArrows = function (layers) {
    var ns = "http://www.w3.org/2000/svg";
    var svgEl = function (tag, attrs, text) {
      var node = document.createElementNS(ns, tag);
      Object.keys(attrs).forEach(function (key) {
        node.setAttribute(key, attrs[key]);
      });
      if (text) {
        node.textContent = text;
      }
      return node;
    };
    var svg = svgEl("svg", { class: "ol-arrows", viewBox: "0 0 640 252", role: "img", "aria-label": "the loop's parts and what moves between them" });
    this.arrows = {};
    var self = this;
    BOXES.forEach(function (box) {
      // A part this run has no layer for is drawn faint.
      var absent = (box[0] === "io" || box[0] === "offload") && !layers[box[0]];
      var group = svgEl("g", { class: "ol-arrow-box" + (absent ? " ol-absent" : ""), "data-part": box[0] });
      group.appendChild(svgEl("rect", { x: box[2], y: box[3], width: box[4], height: 36, rx: 4 }));
      group.appendChild(svgEl("text", { x: box[2] + box[4] / 2, y: box[3] + 23, "text-anchor": "middle" }, box[1]));
      svg.appendChild(group);
    });
    ARROWS.forEach(function (arrow) {
      var from = arrow[2];
      var to = arrow[3];
      var dx = to[0] - from[0];
      var dy = to[1] - from[1];
      var length = Math.sqrt(dx * dx + dy * dy);
      var ux = dx / length;
      var uy = dy / length;
      var head = [
        to,
        [to[0] - 9 * ux + 4.5 * uy, to[1] - 9 * uy - 4.5 * ux],
        [to[0] - 9 * ux - 4.5 * uy, to[1] - 9 * uy + 4.5 * ux]
      ].map(function (point) {
        return point[0].toFixed(1) + "," + point[1].toFixed(1);
      }).join(" ");
      var group = svgEl("g", { class: "ol-arrow", "data-arrow": arrow[0] });
      group.appendChild(svgEl("line", { x1: from[0], y1: from[1], x2: to[0] - 8 * ux, y2: to[1] - 8 * uy }));
      group.appendChild(svgEl("polygon", { points: head }));
      var above = arrow[0] === "run" ? -6 : arrow[0] === "wake" ? 14 : 0;
      var side = arrow[0] === "poll" ? 6 : 0;
      group.appendChild(svgEl("text", {
        x: (from[0] + to[0]) / 2 + side,
        y: (from[1] + to[1]) / 2 + above,
        "text-anchor": arrow[0] === "poll" ? "start" : "middle"
      }, arrow[1]));
      svg.appendChild(group);
      self.arrows[arrow[0]] = group;
    });
    return el("div", { class: "ol-arrows-box" }, [svg]);
  };

  Stepper.prototype.showArrows = function (turn) {
    var came = arrivals(turn);
    var tasks = turn.handles.filter(function (handle) {
      return handle.task;
    }).length;
    var on = {
      io: came.io > 0,
      timers: came.timers > 0,
      inbox: came.inbox > 0,
      run: turn.handles.length > 0,
      wake: turn.after.ready.length > 0,
      poll: tasks > 0
    };
    var arrows = this.arrows;
    Object.keys(arrows).forEach(function (name) {
      arrows[name].classList.toggle("ol-on", on[name]);
    });
  };

  Stepper.prototype.key = function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var control = event.target !== this.host && /^(BUTTON|INPUT)$/.test(event.target.tagName);
    if (control && (event.key === " " || event.key === "Spacebar")) {
      // Space on a button or a checkbox presses it, as everywhere else.
      return;
    }
    if (this.asking !== null && /^[1-9]$/.test(event.key)) {
      var choice = this.question.querySelectorAll(".ol-choice")[parseInt(event.key, 10) - 1];
      if (choice) {
        choice.click();
      }
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    var handled = true;
    switch (event.key) {
      case "ArrowRight":
        this.next();
        break;
      case "ArrowLeft":
        this.prev();
        break;
      case " ":
      case "Spacebar":
        this.togglePlay();
        break;
      case "Home":
        this.go(0, -1);
        break;
      case "End":
        this.go(this.data.turns.length - 1, -1);
        break;
      default:
        handled = false;
    }
    if (handled) {
      // mdBook's own arrow keys turn the page: not while a stepper has focus.
      event.preventDefault();
      event.stopPropagation();
    }
  };

  Stepper.prototype.setSubMode = function (on) {
    this.subMode = on;
    this.subBox.checked = on;
    this.go(this.turn, -1);
  };

  Stepper.prototype.setPredict = function (on) {
    this.predict = on;
    this.predictBox.checked = on;
    this.score = { right: 0, asked: 0 };
    this.go(this.turn, -1);
  };

  // The labels a reader may pick from: what is queued entering the next turn, and
  // what runs in it.
  Stepper.prototype.candidates = function (index) {
    var seen = {};
    var out = [];
    var add = function (label) {
      if (!seen[label]) {
        seen[label] = true;
        out.push(label);
      }
    };
    var previous = this.data.turns[index - 1];
    if (previous && previous.after) {
      previous.after.ready.forEach(add);
    }
    this.data.turns[index].handles.forEach(function (handle) {
      add(handle.label);
    });
    return out.sort();
  };

  // Asks which handle runs first in turn `index`; true if a question is now open.
  Stepper.prototype.ask = function (index) {
    var self = this;
    var turn = this.data.turns[index];
    var choices = turn.handles.length ? this.candidates(index) : [];
    if (choices.length < 2) {
      return false;
    }
    var answer = turn.handles[0].label;
    this.asking = index;
    this.question.textContent = "";
    this.question.appendChild(el("p", { text: "Which handle runs first in " + this.unit + " " + turn.title + "?" }));
    var buttons = el("div", { class: "ol-choices" });
    choices.forEach(function (label) {
      var lane = self.labels[label];
      var button = el("button", { type: "button", class: "ol-button ol-choice", "data-label": label }, [
        lane === undefined ? el("span", { text: label }) : chip(self.data, lane, label)
      ]);
      button.addEventListener("click", function () {
        self.answer(label, answer, index);
      });
      buttons.appendChild(button);
    });
    this.question.appendChild(buttons);
    this.question.hidden = false;
    this.live.textContent = "Predict: which handle runs first in " + this.unit + " " + turn.title + "? Choices: " + choices.join(", ") + ".";
    buttons.firstChild.focus();
    return true;
  };

  // The phases a Node line may be printed in, with the names the step view shows.
  var PHASE_CHOICES = [
    ["main", "main script"],
    ["timers", "timers"],
    ["pending", "pending"],
    ["idle", "idle, prepare"],
    ["poll", "poll"],
    ["check", "check"],
    ["close", "close"]
  ];

  // Node: the first line the view does not show yet.
  Stepper.prototype.nextLine = function () {
    var self = this;
    var shown = this.hideFrom === null ? this.data.turns[this.turn].handles.length : this.hideFrom;
    return this.allLines.filter(function (line) {
      return line.turn > self.turn || (line.turn === self.turn && line.index >= shown);
    })[0];
  };

  // Node: asks where the next line is printed (or which line it is); true if asked.
  Stepper.prototype.askNode = function () {
    var self = this;
    var data = this.data;
    var line = this.nextLine();
    if (!line) {
      return false;
    }
    var byPhase = this.quiz === "phase";
    var answer = byPhase ? data.turns[line.turn].title : line.label;
    var choices = PHASE_CHOICES;
    if (!byPhase) {
      var seen = {};
      var at = this.allLines.indexOf(line);
      choices = this.allLines.slice(at, at + 4).map(function (next) {
        return next.label;
      }).filter(function (label) {
        var fresh = !seen[label];
        seen[label] = true;
        return fresh;
      }).sort().map(function (label) {
        return [label, label];
      });
    }
    this.asking = line.turn;
    this.askingLine = line;
    var text = byPhase ? "In which phase is the line \u201c" + line.label + "\u201d printed?" : "Which line is printed next?";
    this.question.textContent = "";
    this.question.appendChild(el("p", { text: text + " (keys 1\u2013" + choices.length + ")" }));
    var buttons = el("div", { class: "ol-choices" });
    choices.forEach(function (choice, number) {
      var button = el("button", { type: "button", class: "ol-button ol-choice", "data-label": choice[0], text: number + 1 + " " + choice[1] });
      button.addEventListener("click", function () {
        self.answerNode(choice[0], answer, line);
      });
      buttons.appendChild(button);
    });
    this.question.appendChild(buttons);
    this.question.hidden = false;
    this.live.textContent = "Predict: " + text + " Choices: " + choices.map(function (choice) {
      return choice[1];
    }).join(", ") + ".";
    buttons.firstChild.focus();
    return true;
  };

  Stepper.prototype.answerNode = function (picked, answer, line) {
    this.score.asked += 1;
    var right = picked === answer;
    if (right) {
      this.score.right += 1;
    }
    this.closeQuestion();
    var turn = this.data.turns[line.turn];
    this.verdict = (right ? "Right: " : "Wrong: ") + "\u201c" + line.label + "\u201d is printed " +
      (this.quiz === "phase" ? "in the " + turn.title + " phase" + (turn.group ? " (" + turn.group + ")" : "") : "next") + ". ";
    this.go(line.turn, -1);
    this.hideFrom = line.index + 1;
    this.show();
    this.verdict = "";
    this.host.focus();
  };

  Stepper.prototype.answer = function (picked, answer, index) {
    this.score.asked += 1;
    var right = picked === answer;
    if (right) {
      this.score.right += 1;
    }
    this.closeQuestion();
    this.verdict = (right ? "Right: " : "Wrong: ") + answer + " ran first. ";
    this.go(index, -1);
    this.verdict = "";
    this.host.focus();
  };

  Stepper.prototype.closeQuestion = function () {
    this.asking = null;
    this.question.hidden = true;
    this.question.textContent = "";
  };

  Stepper.prototype.next = function () {
    if (this.asking !== null) {
      return false;
    }
    if (this.predict && this.data.loop === "node" && this.askNode()) {
      this.stop();
      return false;
    }
    if (this.predict && this.data.loop !== "node" && !this.subMode && this.turn < this.data.turns.length - 1 && this.ask(this.turn + 1)) {
      this.stop();
      return false;
    }
    var count = this.data.turns[this.turn].handles.length;
    if (this.subMode && this.sub < count - 1) {
      this.go(this.turn, this.sub + 1);
    } else if (this.turn < this.data.turns.length - 1) {
      this.go(this.turn + 1, -1);
    } else {
      this.stop();
      return false;
    }
    return true;
  };

  Stepper.prototype.prev = function () {
    if (this.asking !== null) {
      this.closeQuestion();
      this.show();
      return;
    }
    if (this.subMode && this.sub >= 0) {
      this.go(this.turn, this.sub - 1);
    } else if (this.turn > 0) {
      var previous = this.data.turns[this.turn - 1].handles.length;
      this.go(this.turn - 1, this.subMode ? previous - 1 : -1);
    }
  };

  Stepper.prototype.togglePlay = function () {
    var self = this;
    if (this.timer) {
      this.stop();
      return;
    }
    if (this.turn === this.data.turns.length - 1) {
      this.go(0, -1);
    }
    this.playButton.textContent = "⏸ pause";
    this.timer = setInterval(function () {
      if (!self.next()) {
        self.stop();
      }
    }, 800);
  };

  Stepper.prototype.stop = function () {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
    this.playButton.textContent = "▶ play";
  };

  Stepper.prototype.go = function (turn, sub) {
    this.closeQuestion();
    var last = this.data.turns.length - 1;
    this.turn = Math.max(0, Math.min(last, turn));
    this.sub = this.subMode ? sub : -1;
    // Node's predict mode shows a phase's lines as they are predicted.
    this.hideFrom = this.predict && this.data.loop === "node" ? 0 : null;
    this.show();
  };

  Stepper.prototype.heldList = function (title, items, cls) {
    var self = this;
    var list = el("ul", { class: "ol-list " + cls });
    if (items.length === 0) {
      list.appendChild(el("li", { class: "ol-empty", text: "(empty)" }));
    }
    items.forEach(function (item) {
      var lane = cls.indexOf("ol-ready") >= 0 ? self.labels[item] : undefined;
      list.appendChild(el("li", {}, [lane === undefined ? el("span", { class: "ol-chip", text: item }) : chip(self.data, lane, item)]));
    });
    return el("div", { class: "ol-box" }, [el("div", { class: "ol-caption", text: title }), list]);
  };

  Stepper.prototype.show = function () {
    var self = this;
    var data = this.data;
    var turn = data.turns[this.turn];
    var n = turn.handles.length;
    var unit = this.unit;
    var group = turn.group ? turn.group + ", " : "";
    this.host.setAttribute("data-turn", String(this.turn + 1));
    this.host.setAttribute("data-sub", String(this.sub));
    this.position.textContent = group + unit + " " + turn.title + " (" + (this.turn + 1) + " of " + data.turns.length + ")" +
      (data.durations && data.loop !== "node" ? ", clock " + human(turn.start_us) + " → " + human(turn.end_us) : "");
    this.link.href = "#" + this.host.id + "/turn-" + (this.turn + 1);
    this.scoreText.textContent = this.predict ? "predicted right: " + this.score.right + " of " + this.score.asked : "";
    if (this.predict && !this.scoreText.parentNode) {
      this.controls.appendChild(this.scoreText);
    }

    // The phases of the turn, in _run_once's order.
    this.phases.textContent = "";
    if (data.loop === "node") {
      var counts = {};
      turn.handles.forEach(function (handle, index) {
        if (self.hideFrom === null || index < self.hideFrom) {
          counts[handle.kind] = (counts[handle.kind] || 0) + 1;
        }
      });
      var kinds = Object.keys(counts).map(function (kind) {
        return counts[kind] + " " + kind + "(s)";
      });
      this.phases.appendChild(el("li", { class: "ol-phase" + (n > 0 ? " ol-on" : "") }, [
        el("strong", { text: "phase " + turn.title + (turn.group ? " (" + turn.group + ")" : "") }),
        el("span", { text: kinds.length === 0 ? (n === 0 ? "nothing ran" : "nothing shown yet") : kinds.join(", ") + " ran, in the order below" })
      ]));
    } else {
      var slept = data.durations ? ", slept " + human(turn.parked_us) : "";
      var park = el("li", { class: "ol-phase ol-park" + (turn.parked_us > 0 || turn.timeout_us === null ? " ol-on" : "") }, [
        el("strong", { text: "1 park" }),
        el("span", { class: "ol-timeout", text: "timeout " + timeoutText(turn) + slept + ", " + turn.io_events + " I/O event(s)" })
      ]);
      var timers = el("li", { class: "ol-phase ol-timers" + (turn.timers_moved > 0 ? " ol-on" : "") }, [
        el("strong", { text: "2 due timers" }),
        el("span", { text: turn.timers_moved + " moved to the ready queue" })
      ]);
      var run = el("li", { class: "ol-phase ol-run" + (n > 0 ? " ol-on" : "") }, [
        el("strong", { text: "3 run" }),
        el("span", { class: "ol-ntodo", text: "ntodo = " + n + " handle(s)" })
      ]);
      this.phases.appendChild(park);
      this.phases.appendChild(timers);
      this.phases.appendChild(run);
    }

    // What ran, in order, each in its lane's colour.
    this.ran.textContent = "";
    this.ran.classList.toggle("ol-many", n > 8);
    if (n === 0) {
      this.ran.appendChild(el("li", { class: "ol-empty", text: "nothing" }));
    }
    turn.handles.forEach(function (handle, index) {
      if (self.hideFrom !== null && index >= self.hideFrom) {
        // Not predicted yet: not shown, not even as a gap.
        return;
      }
      var lane = data.lanes[handle.lane];
      var whose = handle.task ? handle.kind + " step, " + handle.task : lane.name === "callbacks" ? handle.kind : lane.name;
      var length = handle.end_us - handle.start_us;
      var took = data.durations ? ", took " + human(length) : "";
      // The figures' threshold, asyncio's slow-callback duration: 100 ms.
      var blocked = data.durations && length >= 100000;
      var state = self.sub < 0 ? "" : index < self.sub ? " ol-done" : index === self.sub ? " ol-current" : " ol-pending";
      var item = el("li", { class: "ol-handle" + state + (blocked ? " ol-blocked" : ""), "data-label": handle.label }, [
        chip(data, handle.lane, handle.label),
        el("span", { class: "ol-whose", text: " (" + whose + took + ")" }),
        blocked ? el("strong", { class: "ol-blocked-note", text: " blocked the loop" }) : null
      ]);
      if (index === self.sub) {
        item.setAttribute("aria-current", "step");
      }
      self.ran.appendChild(item);
    });

    // What the loop held before the turn and after it.
    this.held.textContent = "";
    if (turn.before) {
      this.held.appendChild(this.heldList("ready queue before", turn.before.ready, "ol-ready ol-ready-before"));
      this.held.appendChild(this.heldList("ready queue after", turn.after.ready, "ol-ready ol-ready-after"));
      this.held.appendChild(this.heldList("timer heap head, before", turn.before.timers, "ol-timer-head"));
      this.held.appendChild(this.heldList("timer heap head, after", turn.after.timers, "ol-timer-head-after"));
      turn.before.registrations.forEach(function (entry) {
        self.held.appendChild(self.heldList("registrations (" + entry.layer + "), before", entry.lines, "ol-registrations"));
      });
    }

    this.columns.forEach(function (column, index) {
      column.classList.toggle("ol-here", index === self.turn);
      if (index === self.turn) {
        column.setAttribute("aria-current", "step");
      } else {
        column.removeAttribute("aria-current");
      }
    });
    if (this.marker) {
      var column = data.figure.columns[this.turn];
      this.marker.style.left = (column[0] / data.figure.width) * 100 + "%";
      this.marker.style.width = ((column[1] - column[0]) / data.figure.width) * 100 + "%";
    }
    this.centreColumn();
    if (this.parts) {
      this.showParts(turn);
    }
    if (this.cpythonList) {
      this.showCpython();
    }
    this.live.textContent = (this.verdict || "") + this.describe(turn);
  };

  Stepper.prototype.showParts = function (turn) {
    var parts = this.parts;
    var light = function (name, on, now) {
      if (parts[name]) {
        parts[name].classList.toggle("ol-on", on);
        parts[name].querySelector(".ol-part-now").textContent = now;
      }
    };
    var tasks = turn.handles.filter(function (handle) {
      return handle.task;
    }).length;
    light("ready", turn.handles.length > 0, turn.handles.length + " handle(s) taken; " + turn.after.ready.length + " queued after");
    light("timers", turn.timers_moved > 0, turn.timers_moved + " moved; heap head after: " + turn.after.timers.length + " timer(s)");
    light("io", turn.io_events > 0, turn.io_events + " readiness event(s)");
    var offload = function (held) {
      var entry = held.registrations.filter(function (layer) {
        return layer.layer === "offload";
      })[0];
      return entry ? entry.lines.join("; ") : "";
    };
    // Lit when the inbox or the pool changed during the turn.
    light("offload", offload(turn.before) !== offload(turn.after), "after: " + offload(turn.after));
    light("tasks", tasks > 0, tasks + " task step(s) run");
    // The arrows of the turn, in the order they happen, counted from the recording.
    var moves = [];
    var came = arrivals(turn);
    if (came.inbox > 0) {
      moves.push("thread-safe inbox → ready queue: " + came.inbox + " handle(s) sent from another thread, drained during the park");
    }
    if (turn.io_events > 0) {
      moves.push("selector → ready queue: " + turn.io_events + " readiness event(s)");
    }
    if (turn.timers_moved > 0) {
      moves.push("timer heap → ready queue: " + turn.timers_moved + " due timer handle(s)");
    }
    if (turn.handles.length > 0) {
      moves.push("ready queue → run: the " + turn.handles.length + " handle(s) queued when the run began");
    }
    if (tasks > 0) {
      moves.push("run → task slab: " + tasks + " task future(s) polled");
    }
    if (turn.after.ready.length > 0) {
      moves.push("run → ready queue: " + turn.after.ready.length + " handle(s) queued for the next turn (wakes and call_soon)");
    }
    var self = this;
    this.showArrows(turn);
    this.moves.textContent = "";
    (moves.length ? moves : ["nothing moved"]).forEach(function (move) {
      self.moves.appendChild(el("li", { text: move }));
    });
  };

  Stepper.prototype.describe = function (turn) {
    var data = this.data;
    var names = turn.handles.map(function (handle) {
      return handle.label;
    });
    var head = (turn.group ? turn.group + ", " : "") + this.unit + " " + turn.title + " of " + data.turns.length + ": ";
    if (data.loop === "node") {
      if (this.hideFrom !== null) {
        names = names.slice(0, this.hideFrom);
      }
      return head + (names.length ? "ran " + names.join(", ") + "." : "nothing shown.");
    }
    var park = "parked with timeout " + timeoutText(turn) + (data.durations ? " for " + human(turn.parked_us) : "");
    var text = head + park + ", moved " + turn.timers_moved + " timer(s), then ran " + names.length + " handle(s)" +
      (names.length ? ": " + names.join(", ") : "") + ".";
    if (this.sub >= 0) {
      text += " Now running handle " + (this.sub + 1) + " of " + names.length + ": " + names[this.sub] + ".";
    }
    return text;
  };

  // Responsiveness: the pulse's ticks in the first second and their median interval,
  // computed from two recordings side by side.
  function showPulse(host, recordings) {
    host.textContent = "";
    host.appendChild(el("div", { class: "ol-title" }, [el("strong", { text: "Responsiveness: the pulse beside the worker" })]));
    var table = el("table", { class: "ol-pulse" });
    table.appendChild(el("tr", {}, [
      el("th", { text: "recording" }),
      el("th", { text: "pulse steps in the first second" }),
      el("th", { text: "median interval" })
    ]));
    recordings.forEach(function (data) {
      var pulse = data.lanes.findIndex(function (lane) {
        return lane.name === "pulse";
      });
      var starts = [];
      data.turns.forEach(function (turn) {
        turn.handles.forEach(function (handle) {
          if (handle.lane === pulse) {
            starts.push(handle.start_us);
          }
        });
      });
      var ticks = starts.filter(function (start) {
        return start < 1e6;
      }).length;
      var gaps = [];
      for (var i = 1; i < starts.length; i++) {
        gaps.push(starts[i] - starts[i - 1]);
      }
      gaps.sort(function (a, b) {
        return a - b;
      });
      var median = gaps.length === 0 ? 0 : gaps.length % 2 ? gaps[(gaps.length - 1) / 2] : (gaps[gaps.length / 2 - 1] + gaps[gaps.length / 2]) / 2;
      table.appendChild(el("tr", { "data-demo": data.name }, [
        el("td", { text: data.title }),
        el("td", { class: "ol-ticks", text: String(ticks) }),
        el("td", { class: "ol-median", text: human(median) })
      ]));
    });
    host.appendChild(table);
    host.appendChild(el("p", { class: "ol-caption", text: "counted from the recorded runs on the virtual clock when this page loaded." }));
  }

  function openFromHash() {
    if (/[?&]open=responsiveness(&|$)/.test(window.location.search) && pulses.length) {
      var top = document.querySelector("main");
      if (/[?&]alone(&|$)/.test(window.location.search) && top) {
        top.insertBefore(pulses[0], top.firstChild);
      }
      return true;
    }
    // The fragment, or `?open=<demo>/turn-<n>` (the same, for tools that drop fragments).
    var query = /[?&]open=([^&#]*)/.exec(window.location.search);
    var wanted = window.location.hash || (query ? "#" + decodeURIComponent(query[1]) : "");
    var match = /^#([A-Za-z0-9_-]+)\/turn-(\d+)(?:\/(step|run|parts))?$/.exec(wanted);
    if (!match) {
      return false;
    }
    // The stepper with that id; a demo's name finds its first copy on the page.
    var found = steppers.filter(function (stepper) {
      return stepper.host.id === match[1];
    })[0] || steppers.filter(function (stepper) {
      return stepper.data.name === match[1];
    })[0];
    if (!found) {
      return false;
    }
    var main = document.querySelector("main");
    var alone = /[?&]alone(&|$)/.test(window.location.search) && main;
    if (alone) {
      // Moved to the top of the page instead of scrolled to (headless screenshots
      // capture the top of the page only). Moving it first keeps its scrolling.
      main.insertBefore(found.host, main.firstChild);
    }
    found.go(parseInt(match[2], 10) - 1, -1);
    if (match[3] && found.panels[match[3]]) {
      found.selectView(match[3]);
    }
    if (/[?&]predict(&|$)/.test(window.location.search)) {
      found.setPredict(true);
      found.next();
    }
    if (!alone) {
      found.host.scrollIntoView();
    }
    return true;
  }

  // ---- the self-test: every stepper on the page, stepped end to end and back ----

  function selftest() {
    var lines = [];
    var failures = 0;
    var check = function (ok, what) {
      if (!ok) {
        failures += 1;
        lines.push("FAIL " + what);
      }
      return ok;
    };
    var press = function (stepper, key) {
      stepper.host.dispatchEvent(new KeyboardEvent("keydown", { key: key, bubbles: true, cancelable: true }));
    };
    // What the page shows now, read from the DOM as a reader sees it.
    var shown = function (stepper) {
      return {
        turn: parseInt(stepper.host.getAttribute("data-turn"), 10),
        handles: Array.prototype.map.call(stepper.ran.querySelectorAll(".ol-handle"), function (item) {
          return item.querySelector(".ol-chip").textContent;
        }),
        timeout: (stepper.host.querySelector(".ol-timeout") || { textContent: "" }).textContent,
        live: stepper.live.textContent
      };
    };
    // Per stepper: how often each drawn arrow was lit while its turns were checked.
    var litArrows = {};
    // `revealed`: in Node's predict mode, how many of the phase's lines are shown; the
    // others must not show at all.
    var matches = function (stepper, index, where, revealed) {
      var data = stepper.data;
      var turn = data.turns[index];
      var now = shown(stepper);
      var want = turn.handles.slice(0, revealed === undefined ? turn.handles.length : revealed).map(function (handle) {
        return handle.label;
      });
      var ok = check(now.turn === index + 1, where + ": shows turn " + now.turn + ", expected " + (index + 1));
      ok = check(now.handles.join("|") === want.join("|"), where + ": handles [" + now.handles.join(", ") + "], recorded [" + want.join(", ") + "]") && ok;
      if (data.loop !== "node") {
        ok = check(now.timeout.indexOf("timeout " + timeoutText(turn)) === 0, where + ": park shows '" + now.timeout + "', recorded timeout " + timeoutText(turn)) && ok;
      }
      ok = check(now.live.indexOf(stepper.unit + " " + turn.title + " of " + data.turns.length) >= 0, where + ": the live region says '" + now.live + "'") && ok;
      if (stepper.moves) {
        var moved = stepper.moves.textContent;
        ok = check((moved.indexOf("timer heap → ready queue: " + turn.timers_moved + " ") >= 0) === turn.timers_moved > 0, where + ": the parts view says '" + moved + "' for " + turn.timers_moved + " timer(s) moved") && ok;
        ok = check((moved.indexOf("selector → ready queue: " + turn.io_events + " ") >= 0) === turn.io_events > 0, where + ": the parts view says '" + moved + "' for " + turn.io_events + " I/O event(s)") && ok;
        // The drawn arrows: lit exactly where the recording says something moved.
        var arrived = Math.max(0, turn.handles.length - turn.before.ready.length);
        var expected = {
          io: turn.io_events > 0,
          timers: turn.timers_moved > 0,
          inbox: arrived - turn.timers_moved - turn.io_events > 0,
          run: turn.handles.length > 0,
          wake: turn.after.ready.length > 0,
          poll: turn.handles.some(function (handle) {
            return handle.task !== null;
          })
        };
        Object.keys(expected).forEach(function (arrow) {
          var lit = stepper.arrows[arrow].classList.contains("ol-on");
          ok = check(lit === expected[arrow], where + ": the arrow '" + arrow + "' is " + (lit ? "lit" : "dark")) && ok;
          if (lit) {
            litArrows[arrow] = (litArrows[arrow] || 0) + 1;
          }
        });
      }
      return ok;
    };
    steppers.forEach(function (stepper) {
      var data = stepper.data;
      var name = data.name;
      var count = data.turns.length;
      var before = failures;
      litArrows = {};
      // A quiz (data-predict) opens in predict mode; the walk below steps without it.
      check(stepper.predict === stepper.host.hasAttribute("data-predict"), name + ": predict mode on opening is " + stepper.predict);
      stepper.predictBox.checked = false;
      stepper.predictBox.dispatchEvent(new Event("change"));
      check(stepper.host.getAttribute("data-turns") === String(count), name + ": turn count");
      check(stepper.columns.length === count, name + ": the recorded run has " + stepper.columns.length + " columns for " + count + " turns");
      press(stepper, "Home");
      for (var i = 0; i < count; i++) {
        matches(stepper, i, name + " forward turn " + (i + 1));
        if (i < count - 1) {
          press(stepper, "ArrowRight");
        }
      }
      press(stepper, "ArrowRight");
      check(shown(stepper).turn === count, name + ": next at the end stays at the end");
      for (var j = count - 1; j >= 0; j--) {
        matches(stepper, j, name + " back turn " + (j + 1));
        if (j > 0) {
          press(stepper, "ArrowLeft");
        }
      }
      press(stepper, "End");
      check(shown(stepper).turn === count, name + ": End goes to the last turn");
      press(stepper, "Home");
      check(shown(stepper).turn === 1, name + ": Home goes to the first turn");
      // A column of the recorded run jumps the stepper there.
      var middle = Math.floor(count / 2);
      stepper.columns[middle].click();
      matches(stepper, middle, name + " after clicking column " + (middle + 1));
      // So does a column of the figure, and the figure marks the turn shown.
      if (data.figure) {
        check(stepper.hits.length === count, name + ": the figure has " + stepper.hits.length + " columns for " + count + " turns");
        var last = count - 1;
        stepper.hits[last].click();
        matches(stepper, last, name + " after clicking the figure's column " + count);
        check(stepper.marker.style.left === stepper.hits[last].style.left, name + ": the figure's mark is on column " + count);
      }
      // Handle by handle: one step per handle of the busiest turn, then the next turn.
      if (data.loop !== "node") {
        var busiest = 0;
        data.turns.forEach(function (turn, index) {
          if (turn.handles.length > data.turns[busiest].handles.length) {
            busiest = index;
          }
        });
        stepper.subBox.checked = true;
        stepper.subBox.dispatchEvent(new Event("change"));
        stepper.go(busiest, -1);
        var walk = data.turns[busiest].handles;
        for (var k = 0; k < walk.length; k++) {
          press(stepper, "ArrowRight");
          var current = stepper.ran.querySelector(".ol-current .ol-chip");
          check(current && current.textContent === walk[k].label, name + " handle by handle: step " + (k + 1) + " of turn " + (busiest + 1) + " shows " + (current ? current.textContent : "none") + ", recorded " + walk[k].label);
        }
        press(stepper, "ArrowRight");
        check(busiest === count - 1 || shown(stepper).turn === busiest + 2, name + " handle by handle: after the last handle comes the next turn");
        stepper.subBox.checked = false;
        stepper.subBox.dispatchEvent(new Event("change"));
      }
      // CPython's column: every CPython turn shown once, beside the turn that runs the
      // same handles, and every removed handle marked with a declared difference.
      if (data.cpython) {
        var seenTurns = [];
        var marked = 0;
        var names = data.cpython.differences.map(function (difference) {
          return difference.name;
        });
        for (var c = 0; c < count; c++) {
          stepper.go(c, -1);
          Array.prototype.forEach.call(stepper.cpythonList.querySelectorAll("[data-cpython-turn]"), function (item) {
            var number = parseInt(item.getAttribute("data-cpython-turn"), 10);
            seenTurns.push(number);
            var recorded = data.cpython.turns.filter(function (turn) {
              return turn.number === number;
            })[0];
            var kept = item.querySelectorAll(".ol-cp-handle:not(.ol-cp-removed)").length;
            if (recorded && recorded.oneloop_turn !== null) {
              check(recorded.oneloop_turn === c + 1, name + " CPython: its turn " + number + " is shown beside turn " + (c + 1) + ", recorded beside " + recorded.oneloop_turn);
              check(kept === data.turns[c].handles.length, name + " CPython: turn " + number + " shows " + kept + " handle(s) unmarked beside " + data.turns[c].handles.length);
            }
            Array.prototype.forEach.call(item.querySelectorAll(".ol-cp-removed"), function (removed) {
              marked += 1;
              var mark = removed.querySelector(".ol-cp-mark");
              check(mark && names.some(function (difference) {
                return mark.textContent.indexOf(difference) >= 0;
              }), name + " CPython: a removed handle in turn " + number + " names no declared difference");
            });
          });
        }
        check(seenTurns.join(",") === data.cpython.turns.map(function (turn) {
          return turn.number;
        }).join(","), name + " CPython: shown turns " + seenTurns.join(",") + ", recorded " + data.cpython.turns.length);
        lines.push("INFO " + name + " CPython: " + data.cpython.turns.length + " turns shown, " + marked + " handle(s) marked as a declared difference");
      }
      // Predict mode: answer right on even questions and wrong on odd ones (where a
      // wrong choice exists); the score must count exactly that.
      stepper.predictBox.checked = true;
      stepper.predictBox.dispatchEvent(new Event("change"));
      press(stepper, "Home");
      var asked = 0;
      var right = 0;
      // Node: one question per line printed, in order: its phase, or the line itself.
      var printed = [];
      data.turns.forEach(function (turn, t) {
        turn.handles.forEach(function (handle, h) {
          printed.push({ turn: t, index: h, label: handle.label });
        });
      });
      var byPhase = stepper.host.getAttribute("data-quiz") !== "order";
      var node = data.loop === "node";
      for (var q = 0; q < printed.length + 2 * count + 2; q++) {
        var from = shown(stepper).turn;
        press(stepper, "ArrowRight");
        if (stepper.question.hidden) {
          if (from === count) {
            break;
          }
          continue;
        }
        var line = node ? printed[asked] : null;
        var index = node ? line.turn : shown(stepper).turn;
        var answer = node ? (byPhase ? data.turns[line.turn].title : line.label) : data.turns[index].handles[0].label;
        var choices = Array.prototype.slice.call(stepper.question.querySelectorAll(".ol-choice"));
        var wrong = choices.filter(function (choice) {
          return choice.getAttribute("data-label") !== answer;
        });
        var pick = asked % 2 === 0 || wrong.length === 0 ? choices.filter(function (choice) {
          return choice.getAttribute("data-label") === answer;
        })[0] : wrong[0];
        if (!check(pick, name + " predict: the answer " + answer + " is among the choices")) {
          break;
        }
        right += pick.getAttribute("data-label") === answer ? 1 : 0;
        asked += 1;
        // Answered with the keyboard: the choice's number.
        var number = choices.indexOf(pick) + 1;
        if (number <= 9) {
          press(stepper, String(number));
        } else {
          pick.click();
        }
        check(stepper.question.hidden, name + " predict: key " + number + " answers the question");
        matches(stepper, index, name + " predict: after answering for " + stepper.unit + " " + (index + 1), node ? line.index + 1 : undefined);
      }
      if (node) {
        check(asked === printed.length, name + " predict: " + asked + " questions for " + printed.length + " lines printed");
      }
      check(stepper.scoreText.textContent === "predicted right: " + right + " of " + asked, name + " predict: the score says '" + stepper.scoreText.textContent + "', expected " + right + " of " + asked);
      if (asked > 0) {
        lines.push("INFO " + name + " predict: " + right + " of " + asked + " right, as answered");
      }
      stepper.predictBox.checked = false;
      stepper.predictBox.dispatchEvent(new Event("change"));
      // Space plays and pauses.
      press(stepper, " ");
      check(stepper.timer !== null, name + ": space starts playing");
      press(stepper, " ");
      check(stepper.timer === null, name + ": space pauses");
      press(stepper, "Home");
      if (stepper.arrows) {
        lines.push("INFO " + name + " arrows lit (turns, both ways): " + Object.keys(litArrows).sort().map(function (arrow) {
          return arrow + " " + litArrows[arrow];
        }).join(", "));
      }
      lines.push((failures === before ? "PASS " : "FAIL ") + name + ": " + count + " turns stepped forward and back");
    });
    // A link to a turn opens the stepper there.
    if (steppers.length > 0) {
      var first = steppers[0];
      var target = Math.min(first.data.turns.length, 2);
      history.replaceState(null, "", "#" + first.data.name + "/turn-" + target);
      openFromHash();
      check(shown(first).turn === target, first.data.name + ": the link #" + first.data.name + "/turn-" + target + " opens turn " + shown(first).turn);
    }
    // Every stepper has an id no other element has, even where one demo is shown twice
    // (the print page holds every chapter), and its own link opens it, not a copy.
    var copies = 0;
    steppers.forEach(function (stepper) {
      var id = stepper.host.id;
      check(id && document.querySelectorAll('[id="' + id + '"]').length === 1, stepper.data.name + ": the stepper's id '" + id + "' is not unique on the page");
      var twins = steppers.filter(function (other) {
        return other.data.name === stepper.data.name;
      });
      if (twins.length > 1) {
        copies += 1;
      }
      var turn = Math.min(stepper.data.turns.length, 2);
      stepper.go(turn - 1, -1);
      var href = stepper.link.getAttribute("href");
      twins.forEach(function (other) {
        other.go(0, -1);
      });
      history.replaceState(null, "", href);
      openFromHash();
      check(shown(stepper).turn === turn, stepper.data.name + " (#" + id + "): its link " + href + " opens turn " + shown(stepper).turn + " of this stepper, expected " + turn);
      twins.forEach(function (other) {
        check(other === stepper || shown(other).turn === 1, stepper.data.name + " (#" + id + "): its link " + href + " also moved the copy #" + other.host.id);
      });
    });
    history.replaceState(null, "", window.location.pathname + window.location.search);
    if (copies > 0) {
      lines.push("INFO " + copies + " stepper(s) show a demo shown elsewhere on the page too; each has its own id and link");
    }
    pulses.forEach(function (pulse) {
      var rows = pulse.querySelectorAll("tr[data-demo]");
      check(rows.length === 2, "responsiveness: " + rows.length + " rows");
      lines.push("INFO responsiveness: " + Array.prototype.map.call(rows, function (row) {
        return row.getAttribute("data-demo") + " ticks " + row.querySelector(".ol-ticks").textContent + " median " + row.querySelector(".ol-median").textContent;
      }).join("; "));
    });
    check(errors.length === 0, "console errors: " + errors.join(" | "));
    var summary = "SELFTEST " + (failures === 0 ? "PASS" : "FAIL") + " steppers=" + steppers.length + " pulses=" + pulses.length + " failures=" + failures + " errors=" + errors.length;
    var out = el("pre", { id: "oneloop-selftest", "data-result": failures === 0 ? "pass" : "fail", text: summary + "\n" + lines.join("\n") });
    document.body.insertBefore(out, document.body.firstChild);
  }

  function start() {
    var hosts = Array.prototype.slice.call(document.querySelectorAll(".oneloop-stepper[data-demo]"));
    var pulseHosts = Array.prototype.slice.call(document.querySelectorAll(".oneloop-responsiveness[data-demos]"));
    var waiting = hosts.length + pulseHosts.length;
    var testing = /(^\?|&)selftest(&|$)/.test(window.location.search);
    // Ids in the page's order: a demo's first copy is #<demo>, the next #<demo>-2, and so
    // on (the print page holds every chapter, so a demo may be on it twice).
    hosts.forEach(function (host) {
      var name = host.getAttribute("data-demo");
      var id = name;
      for (var n = 2; document.getElementById(id) && document.getElementById(id) !== host; n++) {
        id = name + "-" + n;
      }
      host.id = id;
    });
    var finished = function () {
      waiting -= 1;
      if (waiting === 0) {
        openFromHash();
        if (testing) {
          selftest();
        }
      }
    };
    if (waiting === 0 && testing) {
      selftest();
    }
    hosts.forEach(function (host) {
      load(host.getAttribute("data-demo"), function (data) {
        if (data) {
          steppers.push(new Stepper(host, data));
        }
        finished();
      });
    });
    pulseHosts.forEach(function (host) {
      var names = host.getAttribute("data-demos").split(/\s+/);
      var got = [];
      names.forEach(function (name) {
        load(name, function (data) {
          got.push(data || { name: name, title: name + " (not loaded)", lanes: [], turns: [] });
          if (got.length === names.length) {
            got.sort(function (a, b) {
              return names.indexOf(a.name) - names.indexOf(b.name);
            });
            showPulse(host, got);
            pulses.push(host);
            finished();
          }
        });
      });
    });
    window.addEventListener("hashchange", openFromHash);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
