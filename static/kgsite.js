// kgsite: the little the pages need beyond htmx, in a static file (no inline scripts or
// handlers, so a strict Content-Security-Policy holds):
// - keyboard shortcuts for the contradiction inbox (1-4 resolve the current card, u undoes,
//   j/k move between cards); the card acted on stays current after its swap;
// - the bell panel reloads when the polled unread count changes, and closes with Escape
//   or a click elsewhere;
// - "check all" boxes of the candidate review queue, and Enter in its merge target merges;
// - a request that failed (a server error, no connection) is said on the page: htmx swaps
//   nothing then, and the click looked ignored.
(function () {
  "use strict";
  function requestError(shown) {
    var note = document.getElementById("request-error");
    if (!note) { return; }
    if (shown) {
      note.textContent = document.body.getAttribute("data-request-error") || "";
      note.setAttribute("role", "alert");  // only while it says something
    } else {
      note.removeAttribute("role");
    }
    note.hidden = !shown;
  }
  document.addEventListener("htmx:responseError", function () { requestError(true); });
  document.addEventListener("htmx:sendError", function () { requestError(true); });
  // A later request the curator made (not a poll, which has no triggering event) that
  // went through takes the note away.
  document.addEventListener("htmx:afterRequest", function (event) {
    var detail = event.detail || {};
    if (detail.successful && detail.requestConfig && detail.requestConfig.triggeringEvent) {
      requestError(false);
    }
  });
  var lastCard = null;  // the id of the card the last shortcut acted on
  function cards() { return Array.from(document.querySelectorAll("[data-shortcuts] .contradiction")); }
  function current() {
    var all = cards();
    return all.find(function (c) { return c.classList.contains("current"); }) ||
      (lastCard && document.getElementById(lastCard)) ||
      all.find(function (c) { return c.classList.contains("open"); }) || all[0];
  }
  function focus(card) {
    cards().forEach(function (c) { c.classList.remove("current"); });
    if (card) {
      card.classList.add("current");
      lastCard = card.id;
      card.scrollIntoView({ block: "nearest" });
    }
  }
  document.addEventListener("click", function (event) {
    var card = event.target.closest && event.target.closest("[data-shortcuts] .contradiction");
    if (card) { focus(card); }
  });
  // htmx:load fires on the new element itself once it is in the page (afterSwap of an
  // outerHTML swap fires on the old, detached one): the swapped card becomes current.
  document.addEventListener("htmx:load", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.classList && elt.classList.contains("contradiction") && elt.id === lastCard) {
      focus(elt);
      var bad = elt.querySelector('[aria-invalid="true"]');
      if (bad) { bad.focus(); }
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || event.target.isContentEditable) { return; }
    if (!document.querySelector("[data-shortcuts]")) { return; }
    var card = current();
    if (!card) { return; }
    var all = cards();
    if (event.key === "j" || event.key === "k") {
      var i = all.indexOf(card) + (event.key === "j" ? 1 : -1);
      if (i >= 0 && i < all.length) { focus(all[i]); }
      event.preventDefault();
      return;
    }
    var button = card.querySelector('[data-key="' + event.key + '"]');
    if (button) {
      event.preventDefault();
      focus(card);
      button.click();
    }
  });

  // The bell: the badge is polled; when its count changes the open panel reloads.
  var lastCount = null;
  document.addEventListener("htmx:afterSettle", function (event) {
    var badge = document.querySelector("#bell-badge .badge");
    if (!badge || !event.detail || !event.detail.elt || event.detail.elt.id !== "bell-badge") { return; }
    var count = badge.getAttribute("data-count");
    if (lastCount !== null && count !== lastCount && window.htmx) {
      window.htmx.trigger(document.body, "kg:bell-changed");
    }
    lastCount = count;
  });

  // The bell's panel closes as a pop-up does: Escape (focus back on the bell) or a click
  // elsewhere on the page; the <details> alone only closes from the bell itself.
  function closeBell(refocus) {
    var bell = document.getElementById("bell");
    if (!bell || !bell.open) { return false; }
    bell.open = false;
    if (refocus) { bell.querySelector("summary").focus(); }
    return true;
  }
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && closeBell(true)) { event.preventDefault(); }
  });
  document.addEventListener("click", function (event) {
    var bell = document.getElementById("bell");
    if (bell && event.target.closest && !event.target.closest("#bell")) { closeBell(false); }
  });

  // Enter in a field submits with the form's first button, which may not be the field's
  // (the candidate queue's is Accept). Under data-enter="<id>" (on the field or its form)
  // Enter in a field clicks that button instead, or nothing when the id is empty.
  document.addEventListener("keydown", function (event) {
    var field = event.target;
    if (event.key !== "Enter" || !field.closest || field.tagName !== "INPUT") { return; }
    if (["submit", "button", "image", "reset"].indexOf(field.type) >= 0) { return; }
    var scope = field.closest("[data-enter]");
    if (!scope) { return; }
    event.preventDefault();
    var button = document.getElementById(scope.getAttribute("data-enter") || "");
    if (button) { button.click(); }
  });

  // A form that comes back to "this page" (the language switch, a message's Undo) was
  // drawn with the page's first address; a search or a filter pushed since then changed
  // it. Its data-here field takes the address the browser shows when it is sent.
  document.addEventListener("submit", function (event) {
    var here = event.target.querySelector && event.target.querySelector("input[data-here]");
    if (here) { here.value = window.location.pathname + window.location.search; }
  });

  // "All on this page" boxes: data-check-all="<name of the boxes>".
  document.addEventListener("change", function (event) {
    var name = event.target.getAttribute && event.target.getAttribute("data-check-all");
    if (!name) { return; }
    var form = event.target.form || document;
    form.querySelectorAll('input[type="checkbox"][name="' + name + '"]').forEach(function (box) {
      box.checked = event.target.checked;
    });
  });
})();
