// The inbox's live updates (apps/portal/inbox.py): the server pushes each change of the business's
// conversations over /ws/inbox/; this page updates itself (no polling). Text is set with textContent.
(function () {
  "use strict";
  var list = document.querySelector("[data-inbox]");
  var transcript = document.getElementById("transcript");
  var holder = list || transcript;
  if (!holder || !("WebSocket" in window)) return;
  var statusEls = document.querySelectorAll("[data-live-status]");
  var openId = transcript ? transcript.getAttribute("data-conversation") : null;
  var delay = 1000;

  function status(text) {
    statusEls.forEach(function (el) { el.textContent = text; });
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function stateBadge(c) {
    if (c.handoff === "requested") return el("span", "badge warn", "Waiting for a person");
    if (c.handoff === "live") return el("span", "badge ok", c.handoff_by + " is answering");
    return el("span", "badge", "Assistant");
  }

  function waitingAlert() {
    var alert = document.getElementById("inbox-alert");
    if (!alert || !list) return;
    var n = list.querySelectorAll(".inbox-row.waiting").length;
    alert.hidden = n === 0;
    alert.textContent = n ? n + " visitor" + (n === 1 ? "" : "s") + " waiting for a person." : "";
  }

  function updateList(c, message) {
    var row = document.getElementById("c" + c.id);
    if (!row) {
      row = el("li", "inbox-row");
      row.id = "c" + c.id;
      var link = el("a");
      link.href = window.location.pathname.replace(/\/$/, "") + "/" + c.id + "/";
      link.appendChild(el("span", "inbox-when"));
      link.appendChild(el("span", "inbox-state"));
      link.appendChild(el("span", "inbox-last", "(no message yet)"));
      row.appendChild(link);
      var empty = list.querySelector(".inbox-empty");
      if (empty) empty.remove();
    }
    row.classList.toggle("waiting", c.handoff === "requested");
    row.querySelector(".inbox-when").textContent = new Date(c.last_at || Date.now()).toLocaleString([], {day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
    var state = row.querySelector(".inbox-state");
    state.textContent = "";
    state.appendChild(stateBadge(c));
    if (message && message.role !== "note") {
      row.querySelector(".inbox-last").textContent = message.text.length > 120 ? message.text.slice(0, 119) + "…" : message.text;
    }
    list.insertBefore(row, list.firstChild);
    waitingAlert();
  }

  function who(message) {
    return {visitor: "Visitor", assistant: "Assistant", note: "Note"}[message.role] || (message.answerer === "person" ? "Person" : "Your answer");
  }

  function updateConversation(c, message) {
    var state = document.getElementById("handoff-state");
    if (state) {
      state.textContent = c.handoff === "live" ? c.handoff_by + " is answering; the assistant is silent."
        : c.handoff === "requested" ? "The visitor is waiting for a person." : "The assistant is answering.";
    }
    if (!message || document.getElementById("m" + message.id)) return;
    var item = el("li", "bubble " + message.role);
    item.id = "m" + message.id;
    item.appendChild(el("span", "who", who(message)));
    item.appendChild(document.createTextNode(" "));
    item.appendChild(el("span", "text", message.text));
    transcript.appendChild(item);
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + holder.getAttribute("data-ws"));
    socket.onopen = function () { delay = 1000; status("Live updates: on"); };
    socket.onmessage = function (event) {
      var frame = JSON.parse(event.data);
      if (frame.type !== "update") return;
      if (list) updateList(frame.conversation, frame.message);
      if (transcript && String(frame.conversation.id) === openId) updateConversation(frame.conversation, frame.message);
    };
    socket.onclose = function (event) {
      if (event.code >= 4400 && event.code < 4500) { status("Live updates: off (sign in again to see new messages)"); return; }
      status("Live updates: reconnecting…");
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    };
  }
  connect();
})();
