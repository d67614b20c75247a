/*!
 * Xorventa chat widget. One tag on any website:
 *   <script src="https://<xorventa host>/static/xorventa/widget.js" data-key="PUBLIC_KEY" async></script>
 * Optional: data-server="https://chat.example.com" (where the websocket and API live; default: this
 * script's own origin).
 *
 * Plain JavaScript (ES2018), no dependencies, no third-party requests. Everything lives in a Shadow DOM
 * so the host page's CSS cannot break it. Message text is always rendered as text (textContent), never
 * as HTML. Protocol: apps/chat/consumers.py.
 */
(function () {
  "use strict";

  var script =
    document.currentScript ||
    document.querySelector('script[data-key][src*="/xorventa/widget"]') ||
    document.querySelector("script[data-key]");
  if (!script) return;
  var KEY = script.getAttribute("data-key") || "";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(KEY)) {
    console.warn("Xorventa widget: missing or invalid data-key");
    return;
  }
  var registry = (window.__xorventa = window.__xorventa || {});
  if (registry[KEY]) return; // the tag was included twice
  registry[KEY] = true;

  var server;
  try {
    server = new URL(script.getAttribute("data-server") || script.src, location.href);
  } catch (e) {
    console.warn("Xorventa widget: cannot tell the server address");
    return;
  }
  var HTTP_BASE = server.origin;
  var WS_BASE = (server.protocol === "https:" ? "wss://" : "ws://") + server.host;

  var DRAFT_PAUSE_MS = 400;
  var DRAFT_MIN_CHARS = 4;
  // The server refuses longer messages (apps.chat.limits.MAX_MESSAGE_CHARS, XORVENTA_MAX_MESSAGE_CHARS);
  // the server's own number replaces this default when it sends one (max_message_chars).
  var MAX_CHARS = 1000;
  var COUNT_FROM = 0.8; // the counter shows from this share of the limit on
  var MAX_BACKOFF_MS = 30000;
  var MAX_AUTO_RETRIES = 10; // then wait for the visitor (open, send, back online) before trying again
  var UNAVAILABLE = "The assistant is unavailable right now.";
  var REFUSED_CODES = { 4400: 1, 4401: 1, 4403: 1, 4404: 1 };
  var UNSENT_ERRORS = { too_long: 1, empty: 1, rate_limited: 1, bad_request: 1 };

  // ---------------------------------------------------------------- storage (may be blocked)
  var memory = {};
  function store(kind) {
    try {
      var s = window[kind];
      var probe = "xorventa:probe";
      s.setItem(probe, "1");
      s.removeItem(probe);
      return s;
    } catch (e) {
      return null;
    }
  }
  var local = store("localStorage");
  var session = store("sessionStorage");
  function getItem(s, k) {
    try {
      return s ? s.getItem(k) : memory[k] || null;
    } catch (e) {
      return memory[k] || null;
    }
  }
  function setItem(s, k, v) {
    try {
      if (s) s.setItem(k, v);
      else memory[k] = v;
    } catch (e) {
      memory[k] = v;
    }
  }
  function removeItem(s, k) {
    try {
      if (s) s.removeItem(k);
    } catch (e) {
      /* ignore */
    }
    delete memory[k];
  }
  var PREFIX = "xorventa:" + KEY + ":";

  // ---------------------------------------------------------------- the site's overrides
  // data-language / data-greeting on the tag, or window.XorventaSettings = {language, greeting, texts}
  // before it, or Xorventa.set({...}) later. Texts are the widget's own words (the answers come from
  // the business's knowledge, whatever the language).
  var overrides = { language: "", greeting: "", texts: {} };
  var TEXTS = {
    placeholder: "Type your question…",
    send: "Send",
    helpful: "Helpful",
    not_helpful: "Not helpful",
    comment_label: "What was wrong? (optional)",
    comment_send: "Send",
    thanks: "Thanks for telling us.",
  };
  function uiText(name) {
    var t = overrides.texts[name];
    return typeof t === "string" && t ? t : TEXTS[name];
  }
  function setOverrides(options) {
    if (!options || typeof options !== "object") return;
    if (typeof options.language === "string" && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(options.language)) {
      overrides.language = options.language;
    }
    if (typeof options.greeting === "string") overrides.greeting = options.greeting.slice(0, 500);
    if (options.texts && typeof options.texts === "object") {
      Object.keys(TEXTS).forEach(function (k) {
        if (typeof options.texts[k] === "string") overrides.texts[k] = options.texts[k].slice(0, 200);
      });
    }
  }
  setOverrides(window.XorventaSettings);
  setOverrides({
    language: script.getAttribute("data-language") || undefined,
    greeting: script.getAttribute("data-greeting") || undefined,
  });
  function greetingText() {
    return overrides.greeting || identity.greeting;
  }

  function randomId() {
    var bytes = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    var alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    var out = "";
    for (var i = 0; i < bytes.length; i++) out += alphabet[bytes[i] & 63];
    return "v" + out;
  }
  function visitorId() {
    var id = getItem(local, PREFIX + "visitor");
    if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
      id = randomId();
      setItem(local, PREFIX + "visitor", id);
    }
    return id;
  }

  // ---------------------------------------------------------------- identity
  var identity = {
    name: "",
    color: "#2255aa",
    greeting: "Hi! Ask me anything.",
    lead_capture_text: "Leave your email or phone and we'll tell you the answer.",
    show_sources: true,
    powered_by: false, // unknown until the server says so: never flash it on a white-label site
    product_name: "",
  };
  try {
    var cached = JSON.parse(getItem(local, PREFIX + "identity") || "null");
    if (cached && typeof cached === "object") mergeIdentity(cached);
  } catch (e) {
    /* ignore */
  }

  function mergeIdentity(data) {
    ["name", "greeting", "lead_capture_text", "product_name"].forEach(function (k) {
      if (typeof data[k] === "string") identity[k] = data[k];
    });
    if (typeof data.color === "string" && /^#[0-9a-fA-F]{6}$/.test(data.color)) identity.color = data.color;
    if (typeof data.show_sources === "boolean") identity.show_sources = data.show_sources;
    if (typeof data.powered_by === "boolean") identity.powered_by = data.powered_by;
    if (typeof data.max_message_chars === "number" && data.max_message_chars >= 4) {
      MAX_CHARS = Math.floor(data.max_message_chars);
    }
  }

  function luminance(hex) {
    var c = [1, 3, 5].map(function (i) {
      var v = parseInt(hex.substr(i, 2), 16) / 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }
  function textOn(hex) {
    // white text when it has at least 4.5:1 contrast on the colour, else near-black
    return 1.05 / (luminance(hex) + 0.05) >= 4.5 ? "#ffffff" : "#111418";
  }

  // ---------------------------------------------------------------- styles
  var CSS = [
    ":host { all: initial; }",
    ".root { all: initial; font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;",
    "  color: #1a1d21; --xv-accent: #2255aa; --xv-on-accent: #fff; -webkit-text-size-adjust: 100%; }",
    ".root *, .root *::before, .root *::after { box-sizing: border-box; font: inherit; color: inherit;",
    "  letter-spacing: normal; text-transform: none; }",
    "[hidden] { display: none !important; }",
    ".sr { position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;",
    "  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }",
    "button { cursor: pointer; margin: 0; border: 0; background: none; padding: 0; }",
    "button:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }",
    "textarea:focus, input:focus { outline: 2px solid var(--xv-accent); outline-offset: 0; border-color: transparent; }",
    ".launcher { position: fixed; right: 20px; bottom: 20px; z-index: 2147483000; width: 58px; height: 58px;",
    "  border-radius: 50%; background: var(--xv-accent); color: var(--xv-on-accent); display: flex;",
    "  align-items: center; justify-content: center; box-shadow: 0 6px 20px rgba(0,0,0,.25);",
    "  transition: transform .15s ease; }",
    ".launcher:hover { transform: scale(1.05); }",
    ".launcher svg { width: 28px; height: 28px; fill: currentColor; }",
    ".panel { position: fixed; right: 20px; bottom: 92px; z-index: 2147483001; width: 370px;",
    "  height: min(620px, calc(100vh - 112px)); display: flex; flex-direction: column; background: #fff;",
    "  border-radius: 14px; overflow: hidden; box-shadow: 0 12px 40px rgba(0,0,0,.22);",
    "  border: 1px solid rgba(0,0,0,.08); }",
    ".head { display: flex; align-items: center; gap: 10px; padding: 12px 12px 12px 16px;",
    "  background: var(--xv-accent); color: var(--xv-on-accent); flex: none; }",
    ".avatar { width: 34px; height: 34px; border-radius: 50%; flex: none; display: flex; align-items: center;",
    "  justify-content: center; font-weight: 700; background: rgba(255,255,255,.22); }",
    ".titles { flex: 1; min-width: 0; }",
    ".title { font-weight: 650; font-size: 16px; margin: 0; overflow: hidden; text-overflow: ellipsis;",
    "  white-space: nowrap; }",
    ".subtitle { font-size: 12.5px; opacity: .85; margin: 0; }",
    ".close { width: 36px; height: 36px; border-radius: 8px; display: flex; align-items: center;",
    "  justify-content: center; color: var(--xv-on-accent); flex: none; }",
    ".close:hover { background: rgba(255,255,255,.16); }",
    ".close svg { width: 20px; height: 20px; fill: currentColor; }",
    ".log { flex: 1; overflow-y: auto; padding: 14px 14px 6px; background: #f7f8fa;",
    "  overscroll-behavior: contain; }",
    ".row { display: flex; flex-direction: column; margin: 0 0 10px; }",
    ".row.visitor { align-items: flex-end; }",
    ".row.assistant, .row.owner, .row.greeting { align-items: flex-start; }",
    ".bubble { max-width: 85%; padding: 9px 13px; border-radius: 16px; white-space: pre-wrap;",
    "  overflow-wrap: anywhere; }",
    ".visitor .bubble { background: var(--xv-accent); color: var(--xv-on-accent); border-bottom-right-radius: 5px; }",
    ".assistant .bubble, .owner .bubble, .greeting .bubble { background: #fff; color: #1a1d21;",
    "  border: 1px solid #e3e6ea; border-bottom-left-radius: 5px; }",
    ".owner .bubble { border-color: var(--xv-accent); }",
    ".meta { font-size: 12px; color: #5b6570; margin: 4px 4px 0; max-width: 85%; }",
    ".meta .src { white-space: nowrap; }",
    ".rate { display: flex; align-items: center; gap: 4px; margin: 4px 2px 0; }",
    ".rate button { font-size: 15px; line-height: 1; padding: 4px 7px; border-radius: 8px; border: 1px solid #e3e6ea;",
    "  background: #fff; }",
    ".rate button[aria-pressed='true'] { background: var(--xv-accent); color: var(--xv-on-accent); border-color: transparent; }",
    ".rate form { display: flex; gap: 6px; margin-top: 6px; width: 100%; }",
    ".rate input { flex: 1; min-width: 0; border: 1px solid #c9ced4; border-radius: 8px; padding: 5px 8px; font-size: 14px; }",
    ".rate .ok { background: var(--xv-accent); color: var(--xv-on-accent); border-radius: 8px; padding: 5px 10px; }",
    ".rate .msg { font-size: 12.5px; color: #5b6570; }",
    ".rated { flex-wrap: wrap; }",
    ".typing { display: inline-flex; gap: 4px; padding: 4px 0; }",
    ".typing i { width: 7px; height: 7px; border-radius: 50%; background: #8a939c; display: block;",
    "  animation: xv-blink 1.2s infinite ease-in-out; }",
    ".typing i:nth-child(2) { animation-delay: .2s; } .typing i:nth-child(3) { animation-delay: .4s; }",
    "@keyframes xv-blink { 0%, 80%, 100% { opacity: .25; } 40% { opacity: 1; } }",
    ".note { font-size: 13px; color: #5b6570; text-align: center; margin: 0 8px 10px; }",
    ".note.error { color: #a32020; }",
    ".person { display: block; margin: 0 12px 6px auto; font-size: 13px; color: var(--xv-accent); text-decoration: underline; }",
    ".person[disabled] { color: #5b6570; text-decoration: none; cursor: default; }",
    ".contact { background: #fff; border: 1px solid #e3e6ea; border-radius: 12px; padding: 10px 12px;",
    "  margin: 0 0 12px; max-width: 92%; }",
    ".contact label { display: block; font-size: 13.5px; margin: 0 0 8px; }",
    ".contact .line { display: flex; gap: 6px; }",
    ".contact input { flex: 1; min-width: 0; border: 1px solid #c9ced4; border-radius: 8px; padding: 7px 9px;",
    "  background: #fff; font-size: 15px; }",
    ".contact .ok { background: var(--xv-accent); color: var(--xv-on-accent); border-radius: 8px;",
    "  padding: 7px 12px; font-weight: 600; }",
    ".contact .skip { font-size: 12.5px; color: #5b6570; text-decoration: underline; margin-top: 6px; }",
    ".contact .msg { font-size: 13px; margin: 6px 0 0; }",
    ".status { flex: none; font-size: 13px; padding: 7px 14px; background: #fff4d6; color: #5c4300;",
    "  border-top: 1px solid #f0e0a8; }",
    ".status.down { background: #fde8e8; color: #8a1c1c; border-top-color: #f3c4c4; }",
    ".composer { flex: none; display: flex; align-items: flex-end; gap: 8px; padding: 10px 12px;",
    "  border-top: 1px solid #e3e6ea; background: #fff; }",
    ".composer textarea { flex: 1; resize: none; border: 1px solid #c9ced4; border-radius: 10px;",
    "  padding: 9px 11px; min-height: 40px; max-height: 120px; font-size: 15px; line-height: 1.4;",
    "  background: #fff; color: #1a1d21; }",
    ".composer textarea::placeholder { color: #737c85; }",
    ".count { flex: none; font-size: 12.5px; color: #5b6570; text-align: right; padding: 0 14px 6px;",
    "  background: #fff; }",
    ".count.full { color: #8a1c1c; font-weight: 600; }",
    ".send { width: 40px; height: 40px; flex: none; border-radius: 10px; background: var(--xv-accent);",
    "  color: var(--xv-on-accent); display: flex; align-items: center; justify-content: center; }",
    ".send[aria-disabled='true'] { opacity: .45; cursor: default; }",
    ".send svg { width: 20px; height: 20px; fill: currentColor; }",
    ".powered { flex: none; text-align: center; font-size: 11.5px; color: #6b747d; padding: 0 0 8px;",
    "  background: #fff; }",
    "@media (max-width: 480px) {",
    "  .panel { inset: 0; width: 100%; height: 100%; max-height: none; border-radius: 0; border: 0; }",
    "  .root.open .launcher { display: none; }",
    "  .composer textarea, .contact input { font-size: 16px; }",
    "}",
    "@media (prefers-reduced-motion: reduce) { .launcher, .typing i { transition: none; animation: none; } }",
  ].join("\n");

  // ---------------------------------------------------------------- DOM helpers (text only)
  var uid = 0;
  function nextId(name) {
    uid += 1;
    return "xv-" + name + "-" + uid;
  }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (attrs[k] === true) node.setAttribute(k, "");
        else if (attrs[k] !== false && attrs[k] != null) node.setAttribute(k, String(attrs[k]));
      });
    }
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  var SVG_NS = "http://www.w3.org/2000/svg";
  function icon(path) {
    var svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    var p = document.createElementNS(SVG_NS, "path");
    p.setAttribute("d", path);
    svg.appendChild(p);
    return svg;
  }
  var ICON_CHAT =
    "M12 3C6.5 3 2 6.6 2 11c0 2.4 1.3 4.5 3.4 6L4.6 21l4.3-2.3c1 .2 2 .3 3.1.3 5.5 0 10-3.6 10-8s-4.5-8-10-8z";
  var ICON_CLOSE =
    "M18.3 5.7a1 1 0 0 0-1.4 0L12 10.6 7.1 5.7a1 1 0 0 0-1.4 1.4l4.9 4.9-4.9 4.9a1 1 0 1 0 1.4 1.4l4.9-4.9 4.9 4.9a1 1 0 0 0 1.4-1.4L13.4 12l4.9-4.9a1 1 0 0 0 0-1.4z";
  var ICON_SEND = "M3.4 20.4 21 12 3.4 3.6l-.01 6.53L15 12 3.39 13.87z";

  // ---------------------------------------------------------------- build
  var host = document.createElement("xorventa-widget");
  host.setAttribute("data-key", KEY);
  var shadow = host.attachShadow({ mode: "open" });
  if (shadow.adoptedStyleSheets !== undefined && typeof CSSStyleSheet === "function") {
    try {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS); // constructable sheets are not blocked by a page's style-src CSP
      shadow.adoptedStyleSheets = [sheet];
    } catch (e) {
      shadow.appendChild(el("style", null, [CSS]));
    }
  } else {
    shadow.appendChild(el("style", null, [CSS]));
  }

  var panelId = nextId("panel");
  var titleId = nextId("title");
  var inputId = nextId("input");

  var launcher = el("button", {
    type: "button",
    class: "launcher",
    "aria-expanded": "false",
    "aria-controls": panelId,
    "aria-label": "Open chat",
  });
  var launcherIcon = icon(ICON_CHAT);
  launcher.appendChild(launcherIcon);

  var avatar = el("span", { class: "avatar", "aria-hidden": "true" });
  var title = el("h2", { class: "title", id: titleId });
  var subtitle = el("p", { class: "subtitle" }, ["Assistant"]);
  var closeBtn = el("button", { type: "button", class: "close", "aria-label": "Close chat" }, [icon(ICON_CLOSE)]);
  var head = el("div", { class: "head" }, [avatar, el("div", { class: "titles" }, [title, subtitle]), closeBtn]);

  var log = el("div", {
    class: "log",
    role: "log",
    "aria-live": "polite",
    "aria-relevant": "additions text",
    "aria-label": "Conversation",
    tabindex: "0",
  });
  var status = el("div", { class: "status", role: "status", hidden: true });
  var countId = nextId("count");
  var textarea = el("textarea", {
    id: inputId,
    rows: "1",
    placeholder: "Type your question…",
    autocomplete: "off",
    enterkeyhint: "send",
    maxlength: String(MAX_CHARS),
    "aria-describedby": countId,
  });
  // Characters typed out of the limit: shown near the limit, read with the box by screen readers.
  var counter = el("div", { class: "count", id: countId, hidden: true });
  var sendBtn = el("button", { type: "submit", class: "send", "aria-label": "Send" }, [icon(ICON_SEND)]);
  var composer = el("form", { class: "composer", novalidate: true }, [
    el("label", { for: inputId, class: "sr" }, ["Your question"]),
    textarea,
    sendBtn,
  ]);
  // Ask for a person (apps/chat/handoff.py): the sure way; typing "can I talk to a human?" works too.
  var personBtn = el("button", { type: "button", class: "person" }, ["Talk to a person"]);
  personBtn.addEventListener("click", function () {
    if (send({ type: "person" })) personBtn.disabled = true;
  });
  var powered = el("div", { class: "powered", hidden: true });
  var panel = el(
    "div",
    { class: "panel", id: panelId, role: "dialog", "aria-labelledby": titleId, hidden: true },
    [head, log, status, composer, counter, powered]
  );
  var root = el("div", { class: "root" }, [panel, launcher]);
  shadow.appendChild(root);
  panel.insertBefore(personBtn, composer);

  var greetingRow = null;

  function applyIdentity() {
    var name = identity.name || "us";
    root.style.setProperty("--xv-accent", identity.color);
    root.style.setProperty("--xv-on-accent", textOn(identity.color));
    title.textContent = identity.name || "Chat";
    avatar.textContent = (identity.name || "?").trim().charAt(0).toUpperCase();
    panel.setAttribute("aria-label", "Chat with " + name);
    panel.removeAttribute("aria-labelledby");
    launcher.setAttribute("aria-label", "Chat with " + name);
    powered.textContent = identity.product_name ? "Powered by " + identity.product_name : "";
    powered.hidden = !(identity.powered_by && identity.product_name);
    if (greetingRow) greetingRow.querySelector(".text").textContent = greetingText();
    applyTexts();
  }
  applyIdentity();

  // ---------------------------------------------------------------- messages
  function nearBottom() {
    return log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  }
  function scrollDown(force) {
    if (force || nearBottom()) log.scrollTop = log.scrollHeight;
  }
  function speaker(role) {
    if (role === "visitor") return "You";
    return identity.name || "Assistant";
  }
  function addRow(role, text) {
    var stick = nearBottom();
    var textEl = el("span", { class: "text" });
    textEl.appendChild(document.createTextNode(text || ""));
    var bubble = el("div", { class: "bubble" }, [el("span", { class: "sr" }, [speaker(role) + ": "]), textEl]);
    var row = el("div", { class: "row " + role }, [bubble]);
    log.appendChild(row);
    scrollDown(stick || role === "visitor");
    return row;
  }
  function setSources(row, sources) {
    var old = row.querySelector(".meta");
    if (old) old.remove();
    if (!identity.show_sources || !Array.isArray(sources) || !sources.length) return;
    var labels = sources
      .filter(function (s) {
        return typeof s === "string" && s;
      })
      .slice(0, 5);
    if (!labels.length) return;
    var meta = el("p", { class: "meta" }, [el("span", { class: "sr" }, ["Sources: "])]);
    labels.forEach(function (label, i) {
      if (i) meta.appendChild(document.createTextNode(" · "));
      meta.appendChild(el("span", { class: "src" }, [label]));
    });
    row.appendChild(meta);
  }
  function addNote(text, isError) {
    var stick = nearBottom();
    var note = el("p", { class: "note" + (isError ? " error" : "") }, [text]);
    log.appendChild(note);
    scrollDown(stick || isError);
    return note;
  }
  function renderGreeting() {
    greetingRow = addRow("greeting", greetingText());
  }
  function renderTranscript(messages) {
    log.textContent = "";
    contactBox = null;
    renderGreeting();
    (messages || []).forEach(function (m) {
      if (!m || typeof m.text !== "string") return;
      if (m.role === "note") {
        addNote(m.text); // "<name> joined", "... left": a person's presence, not a message
        return;
      }
      var role = m.role === "visitor" ? "visitor" : m.role === "owner" ? "owner" : "assistant";
      var row = addRow(role, m.text);
      if (role === "assistant") setSources(row, m.sources);
      if (role === "assistant" && m.decision === "answer" && m.id) addFeedback(row, m.id, m.feedback);
    });
    scrollDown(true);
  }
  renderGreeting();

  // ---------------------------------------------------------------- lead capture
  var contactBox = null;
  var contactPending = null; // the form's feedback line while its contact frame is on the way
  function offerContact() {
    if (contactBox && contactBox.isConnected) return;
    var fieldId = nextId("contact");
    var input = el("input", {
      id: fieldId,
      type: "text",
      inputmode: "email",
      autocomplete: "email",
      maxlength: "200",
      placeholder: "Email or phone",
    });
    var feedback = el("p", { class: "msg", role: "status" });
    if (identified.email) input.value = identified.email; // the site said who the visitor is
    var form = el("form", { class: "contact", novalidate: true }, [
      el("label", { for: fieldId }, [identity.lead_capture_text]),
      el("div", { class: "line" }, [input, el("button", { type: "submit", class: "ok" }, ["Send"])]),
      feedback,
      el("button", { type: "button", class: "skip" }, ["No thanks"]),
    ]);
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var value = input.value.trim();
      var digits = value.replace(/\D/g, "").length;
      if (!(/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) || (digits >= 6 && /^[+\d\s().-]+$/.test(value)))) {
        feedback.textContent = "Please enter an email address or a phone number.";
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      if (!send({ type: "contact", value: value })) {
        feedback.textContent = "Not connected right now. Please try again in a moment.";
        return;
      }
      input.removeAttribute("aria-invalid");
      feedback.textContent = "Sending…";
      contactPending = feedback;
      contactSent = value;
    });
    form.querySelector(".skip").addEventListener("click", function () {
      form.remove();
      contactBox = null;
      textarea.focus();
    });
    contactBox = form;
    var stick = nearBottom();
    log.appendChild(form);
    scrollDown(stick);
  }
  function contactSaved() {
    contactPending = null;
    if (!contactBox) return;
    var done = el("p", { class: "note" }, ["Thanks! We'll get back to you with the answer."]);
    contactBox.replaceWith(done);
    contactBox = null;
  }

  // ---------------------------------------------------------------- connection
  var ws = null;
  var state = "idle"; // idle | connecting | open | retrying | refused
  var connectedOnce = false;
  var failures = 0;
  var retryTimer = null;
  var busy = false;
  var turns = {};
  var waitingRow = null; // the assistant row shown (with a typing indicator) before "start"
  var pendingVisitor = null; // {row, text}: sent, not yet accepted by the server
  var lastDraft = "";
  var sendWhenOpen = false;
  var draftTimer = null;

  function setStatus(text, down) {
    status.textContent = text || "";
    status.hidden = !text;
    status.className = "status" + (down ? " down" : "");
  }
  function updateSend() {
    var can = state === "open" && !busy && textarea.value.trim().length > 0;
    sendBtn.setAttribute("aria-disabled", can ? "false" : "true");
    updateCount();
  }
  function updateCount() {
    textarea.setAttribute("maxlength", String(MAX_CHARS));
    var used = textarea.value.length;
    counter.hidden = used < MAX_CHARS * COUNT_FROM;
    counter.textContent = used + " / " + MAX_CHARS + (used >= MAX_CHARS ? " characters: the limit" : " characters");
    counter.className = "count" + (used >= MAX_CHARS ? " full" : "");
  }

  function connect() {
    if (state === "refused") return;
    if (ws && (ws.readyState === 0 || ws.readyState === 1)) return;
    clearTimeout(retryTimer);
    retryTimer = null;
    state = "connecting";
    if (connectedOnce) setStatus("Reconnecting…");
    else if (!failures) setStatus("Connecting…");
    var url = WS_BASE + "/ws/chat/" + encodeURIComponent(KEY) + "/?visitor=" + encodeURIComponent(visitorId());
    var sock;
    try {
      sock = new WebSocket(url);
    } catch (e) {
      scheduleRetry();
      return;
    }
    ws = sock;
    sock.onmessage = function (ev) {
      if (ws !== sock) return;
      var frame;
      try {
        frame = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      if (frame && typeof frame === "object") handle(frame);
    };
    sock.onclose = function (ev) {
      if (ws !== sock) return;
      ws = null;
      var hadHello = sock.__hello;
      endTurnOnDrop();
      if (REFUSED_CODES[ev.code]) {
        sendWhenOpen = false;
        state = "refused";
        setStatus(UNAVAILABLE, true);
        updateSend();
        return;
      }
      if (hadHello) failures = 0;
      scheduleRetry();
    };
  }

  function scheduleRetry() {
    failures += 1;
    state = "retrying";
    updateSend();
    // Never connected on this page, or several failures in a row: tell the visitor plainly.
    if (!connectedOnce || failures > 3) setStatus(UNAVAILABLE + " We'll keep trying.", true);
    else setStatus("Reconnecting…");
    if (failures > MAX_AUTO_RETRIES) {
      setStatus(UNAVAILABLE, true);
      return; // the visitor's next action (open, send, back online) tries again
    }
    var base = Math.min(MAX_BACKOFF_MS, 1000 * Math.pow(2, failures - 1));
    var delay = Math.min(MAX_BACKOFF_MS, Math.round(base * (0.8 + Math.random() * 0.4)));
    retryTimer = setTimeout(connect, delay);
  }

  function retrySoon() {
    if (state === "retrying") {
      if (failures > MAX_AUTO_RETRIES) failures = MAX_AUTO_RETRIES - 1;
      connect();
    }
  }
  window.addEventListener("online", retrySoon);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && state === "retrying" && !retryTimer) retrySoon();
  });

  function send(frame) {
    if (!ws || ws.readyState !== 1 || state !== "open") return false;
    try {
      ws.send(JSON.stringify(frame));
      return true;
    } catch (e) {
      return false;
    }
  }

  function endTurnOnDrop() {
    if (waitingRow) {
      waitingRow.remove();
      waitingRow = null;
    }
    if (busy) addNote("The connection dropped before the answer finished.", true);
    busy = false;
    turns = {};
    pendingVisitor = null;
    log.setAttribute("aria-busy", "false");
    updateSend();
  }

  function typingRow() {
    var row = addRow("assistant", "");
    var dots = el("span", { class: "typing", "aria-hidden": "true" }, [el("i"), el("i"), el("i")]);
    row.querySelector(".bubble").appendChild(dots);
    return row;
  }

  function handle(frame) {
    var row;
    switch (frame.type) {
      case "hello":
        ws.__hello = true;
        state = "open";
        connectedOnce = true;
        failures = 0;
        setStatus("");
        if (frame.business && typeof frame.business === "object") {
          mergeIdentity(frame.business);
          var keep = {};
          ["name", "color", "greeting", "lead_capture_text", "show_sources", "powered_by", "product_name"].forEach(
            function (k) {
              keep[k] = identity[k];
            }
          );
          setItem(local, PREFIX + "identity", JSON.stringify(keep));
          applyIdentity();
        }
        renderTranscript(frame.conversation && frame.conversation.messages);
        personBtn.disabled = !!(frame.conversation && frame.conversation.handoff);
        updateSend();
        if (sendWhenOpen) {
          sendWhenOpen = false;
          submit();
        }
        break;
      case "start":
        pendingVisitor = null;
        row = waitingRow || typingRow();
        waitingRow = null;
        turns[frame.turn] = { row: row, text: row.querySelector(".text").firstChild, first: true };
        log.setAttribute("aria-busy", "true");
        break;
      case "delta": {
        var turn = turns[frame.turn];
        if (!turn || typeof frame.text !== "string") return;
        if (turn.first) {
          var dots = turn.row.querySelector(".typing");
          if (dots) dots.remove();
          turn.first = false;
        }
        var stick = nearBottom();
        turn.text.appendData(frame.text); // a Text node: never parsed as HTML
        scrollDown(stick);
        break;
      }
      case "end": {
        var t = turns[frame.turn];
        delete turns[frame.turn];
        if (t) {
          var leftover = t.row.querySelector(".typing");
          if (leftover) leftover.remove();
          setSources(t.row, frame.sources);
          if (frame.decision === "answer" && frame.message_id) addFeedback(t.row, frame.message_id);
          emit("answer", {
            text: t.text.data,
            question: lastQuestion,
            decision: frame.decision,
            sources: Array.isArray(frame.sources) ? frame.sources.slice() : [],
            messageId: frame.message_id,
          });
        }
        busy = false;
        log.setAttribute("aria-busy", "false");
        if (frame.ask_contact) offerContact();
        scrollDown(false);
        updateSend();
        break;
      }
      case "held": // a person answers this conversation: the assistant does not reply
        if (waitingRow) {
          waitingRow.remove();
          waitingRow = null;
        }
        pendingVisitor = null;
        busy = false;
        log.setAttribute("aria-busy", "false");
        updateSend();
        break;
      case "handoff": // the answer to "Talk to a person"
        personBtn.disabled = frame.state === "requested" || frame.state === "live";
        if (typeof frame.reply === "string" && frame.reply) addRow("assistant", frame.reply);
        if (frame.ask_contact) offerContact();
        break;
      case "person": // a person's reply, or "<name> joined" / "... left" (pushed while the widget is open)
        if (frame.message && typeof frame.message.text === "string") {
          if (frame.message.role === "note") addNote(frame.message.text);
          else addRow("owner", frame.message.text); // a Text node
        }
        personBtn.disabled = frame.handoff === "live" || frame.handoff === "requested";
        break;
      case "contact_saved":
        emit("lead", { source: "lead_form", contact: contactSent, questions: frame.questions });
        contactSaved();
        break;
      case "error":
        showError(frame);
        break;
      default:
        break;
    }
  }

  function showError(frame) {
    var message = typeof frame.message === "string" && frame.message ? frame.message : "Something went wrong.";
    if (contactPending && contactPending.isConnected && !busy) {
      contactPending.textContent = message; // the contact form's own answer, shown in the form
      contactPending = null;
      return;
    }
    if (waitingRow) {
      waitingRow.remove();
      waitingRow = null;
    }
    Object.keys(turns).forEach(function (k) {
      var t = turns[k];
      if (!t.text.data) t.row.remove();
    });
    turns = {};
    if (pendingVisitor && UNSENT_ERRORS[frame.code]) {
      // not stored by the server: take the bubble back and give the text back to the visitor
      pendingVisitor.row.remove();
      if (!textarea.value) textarea.value = pendingVisitor.text;
      autosize();
    }
    pendingVisitor = null;
    busy = false;
    log.setAttribute("aria-busy", "false");
    var note = addNote(message, true);
    note.setAttribute("data-code", String(frame.code || ""));
    updateSend();
  }

  // ---------------------------------------------------------------- composer
  function autosize() {
    textarea.style.height = "auto";
    textarea.style.height = Math.min(120, textarea.scrollHeight + 2) + "px";
  }
  function submit() {
    var text = textarea.value.trim();
    if (!text || busy) return;
    if (state !== "open") {
      if (state === "refused") setStatus(UNAVAILABLE, true);
      else {
        sendWhenOpen = true; // the text stays in the composer and goes out with the hello
        if (state === "retrying") retrySoon();
        else connect();
      }
      return;
    }
    if (!send({ type: "message", text: text })) return;
    clearTimeout(draftTimer);
    lastDraft = "";
    if (contactBox) {
      contactBox.remove();
      contactBox = null;
    }
    busy = true;
    pendingVisitor = { row: addRow("visitor", text), text: text };
    lastQuestion = text;
    textarea.value = "";
    autosize();
    waitingRow = typingRow();
    updateSend();
  }
  composer.addEventListener("submit", function (ev) {
    ev.preventDefault();
    submit();
    textarea.focus();
  });
  textarea.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      submit();
    }
  });
  textarea.addEventListener("input", function () {
    autosize();
    updateSend();
    clearTimeout(draftTimer);
    draftTimer = setTimeout(function () {
      var text = textarea.value.trim();
      if (text.length >= DRAFT_MIN_CHARS && text !== lastDraft && text.length <= MAX_CHARS) {
        if (send({ type: "draft", text: text })) lastDraft = text;
      }
    }, DRAFT_PAUSE_MS);
  });

  // ---------------------------------------------------------------- open / close
  function isOpen() {
    return !panel.hidden;
  }
  function open(moveFocus) {
    panel.hidden = false;
    root.classList.add("open");
    launcher.setAttribute("aria-expanded", "true");
    launcher.replaceChild(icon(ICON_CLOSE), launcher.firstChild);
    setItem(session, PREFIX + "open", "1");
    emit("open", {});
    if (state === "idle" || state === "retrying") {
      if (state === "retrying") retrySoon();
      else connect();
    }
    scrollDown(true);
    if (moveFocus !== false) textarea.focus();
  }
  function close() {
    panel.hidden = true;
    root.classList.remove("open");
    launcher.setAttribute("aria-expanded", "false");
    launcher.replaceChild(icon(ICON_CHAT), launcher.firstChild);
    removeItem(session, PREFIX + "open");
    emit("close", {});
    launcher.focus();
  }
  launcher.addEventListener("click", function () {
    if (isOpen()) close();
    else open();
  });
  // warm the connection up when the visitor is about to open the chat
  launcher.addEventListener("pointerenter", function () {
    if (state === "idle") connect();
  });
  closeBtn.addEventListener("click", close);
  root.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && isOpen()) {
      ev.stopPropagation();
      close();
    }
  });

  // ---------------------------------------------------------------- answer feedback
  function postJSON(path, body) {
    if (!window.fetch) return Promise.resolve(null);
    return fetch(HTTP_BASE + "/api/v1/widgets/" + encodeURIComponent(KEY) + path, {
      method: "POST",
      mode: "cors",
      credentials: "omit",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then(
      function (r) {
        return r.json().then(
          function (data) {
            return { ok: r.ok, data: data };
          },
          function () {
            return { ok: r.ok, data: null };
          }
        );
      },
      function () {
        return null;
      }
    );
  }
  function addFeedback(row, messageId, given) {
    if (row.querySelector(".rate")) return;
    var up = el("button", { type: "button", "aria-pressed": "false", "aria-label": uiText("helpful"), title: uiText("helpful") }, ["👍"]);
    var down = el("button", { type: "button", "aria-pressed": "false", "aria-label": uiText("not_helpful"), title: uiText("not_helpful") }, ["👎"]);
    var note = el("span", { class: "msg", role: "status" });
    var bar = el("div", { class: "rate" }, [up, down, note]);
    function mark(rating) {
      up.setAttribute("aria-pressed", rating === "up" ? "true" : "false");
      down.setAttribute("aria-pressed", rating === "down" ? "true" : "false");
    }
    if (given && given.rating) mark(given.rating);
    function rate(rating, comment) {
      mark(rating);
      return postJSON("/feedback", { visitor_id: visitorId(), message_id: messageId, rating: rating, comment: comment || "" }).then(
        function (res) {
          note.textContent = res && res.ok ? uiText("thanks") : (res && res.data && res.data.detail) || UNAVAILABLE;
          if (res && res.ok) emit("feedback", { messageId: messageId, rating: rating, comment: comment || "" });
          return res && res.ok;
        }
      );
    }
    up.addEventListener("click", function () {
      rate("up");
    });
    down.addEventListener("click", function () {
      rate("down").then(function (ok) {
        if (!ok || bar.querySelector("form")) return;
        var fieldId = nextId("why");
        var input = el("input", { id: fieldId, type: "text", maxlength: "1000" });
        var form = el("form", { novalidate: true }, [
          el("label", { for: fieldId, class: "sr" }, [uiText("comment_label")]),
          input,
          el("button", { type: "submit", class: "ok" }, [uiText("comment_send")]),
        ]);
        input.setAttribute("placeholder", uiText("comment_label"));
        form.addEventListener("submit", function (ev) {
          ev.preventDefault();
          var comment = input.value.trim();
          if (!comment) return;
          rate("down", comment).then(function (sent) {
            if (sent) form.remove();
          });
        });
        bar.classList.add("rated");
        bar.appendChild(form);
        input.focus();
      });
    });
    row.appendChild(bar);
  }

  // ---------------------------------------------------------------- the JavaScript API (README: Widget API)
  var listeners = {};
  var identified = { name: "", email: "" };
  var lastQuestion = "";
  var contactSent = "";
  function emit(name, detail) {
    (listeners[name] || []).slice().forEach(function (fn) {
      try {
        fn(detail);
      } catch (e) {
        if (window.console) console.error("Xorventa widget: an '" + name + "' listener failed", e);
      }
    });
  }
  function applyTexts() {
    textarea.setAttribute("placeholder", uiText("placeholder"));
    sendBtn.setAttribute("aria-label", uiText("send"));
    if (overrides.language) root.setAttribute("lang", overrides.language);
  }
  var api = function (method) {
    // Xorventa("open"), Xorventa("on", "answer", fn): the queue form, usable before the script loads.
    var fn = api[method];
    if (typeof fn !== "function") throw new Error("Xorventa: no method " + method);
    return fn.apply(api, Array.prototype.slice.call(arguments, 1));
  };
  api.version = "1";
  api.open = function () {
    open();
  };
  api.close = function () {
    if (isOpen()) close();
  };
  api.ask = function (question) {
    if (typeof question !== "string" || !question.trim()) return false;
    if (!isOpen()) open(false);
    textarea.value = question.trim();
    autosize();
    updateSend();
    submit(); // sent now, or with the hello once connected
    return true;
  };
  api.identify = function (who) {
    who = who || {};
    var email = typeof who.email === "string" ? who.email.trim() : "";
    if (!email) return Promise.resolve(false);
    identified = { name: typeof who.name === "string" ? who.name : "", email: email };
    var body = { visitor_id: visitorId(), email: email, name: identified.name };
    if (typeof who.consent === "string") body.consent = who.consent;
    return postJSON("/identify", body).then(function (res) {
      if (res && res.ok) emit("lead", { source: "identify", contact: email, name: identified.name });
      return !!(res && res.ok);
    });
  };
  api.on = function (name, fn) {
    if (typeof fn !== "function") return function () {};
    (listeners[name] = listeners[name] || []).push(fn);
    return function () {
      api.off(name, fn);
    };
  };
  api.off = function (name, fn) {
    listeners[name] = (listeners[name] || []).filter(function (f) {
      return f !== fn;
    });
  };
  api.set = function (options) {
    setOverrides(options);
    applyIdentity();
  };
  api.isOpen = isOpen;
  var queued = window.Xorventa && window.Xorventa.q;
  if (!window.Xorventa || queued) {
    window.Xorventa = api; // the first widget on the page owns the name
    applyTexts();
    (queued || []).forEach(function (args) {
      try {
        api.apply(null, Array.prototype.slice.call(args));
      } catch (e) {
        if (window.console) console.error(e);
      }
    });
    try {
      window.dispatchEvent(new CustomEvent("xorventa:ready", { detail: api }));
    } catch (e) {
      /* old browsers: the queue form still works */
    }
  }

  function mount() {
    document.body.appendChild(host);
    if (getItem(session, PREFIX + "open") === "1") open(false); // it was open on the previous page
  }
  if (document.body) mount();
  else document.addEventListener("DOMContentLoaded", mount);

  // Theme the launcher before any connection (the hello frame is authoritative and overrides this).
  if (window.fetch) {
    fetch(HTTP_BASE + "/api/v1/widgets/" + encodeURIComponent(KEY) + "/config", {
      credentials: "omit",
      mode: "cors",
    })
      .then(function (r) {
        return r.ok ? r.json() : null;
      })
      .then(function (data) {
        if (data && state !== "open") {
          mergeIdentity(data);
          applyIdentity();
        }
      })
      .catch(function () {
        /* the hello frame will bring the identity */
      });
  }
})();
