// kgsite: keyboard shortcuts for the contradiction inbox (1-4 resolve the current card,
// u undoes, j/k move between cards). Everything else on the pages is plain htmx.
(function () {
  "use strict";
  function cards() { return Array.from(document.querySelectorAll("[data-shortcuts] .contradiction")); }
  function current() {
    var all = cards();
    return all.find(function (c) { return c.classList.contains("current"); }) ||
      all.find(function (c) { return c.classList.contains("open"); }) || all[0];
  }
  function focus(card) {
    cards().forEach(function (c) { c.classList.remove("current"); });
    if (card) { card.classList.add("current"); card.scrollIntoView({ block: "nearest" }); }
  }
  document.addEventListener("click", function (event) {
    var card = event.target.closest && event.target.closest("[data-shortcuts] .contradiction");
    if (card) { focus(card); }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var card = event.detail.target && event.detail.target.closest ? event.detail.target : null;
    var swapped = card && card.id ? document.getElementById(card.id) : null;
    if (swapped && swapped.classList.contains("contradiction")) {
      focus(swapped);
      var bad = swapped.querySelector('[aria-invalid="true"]');
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
  // Progress bars take their width from data-width: the Content-Security-Policy refuses
  // style attributes, not styles set through the DOM. htmx:load fires for the page and
  // for every swapped part.
  document.addEventListener("htmx:load", function (event) {
    var root = event.detail && event.detail.elt ? event.detail.elt : document;
    var bars = Array.from(root.querySelectorAll("[data-width]"));
    if (root.matches && root.matches("[data-width]")) { bars.push(root); }
    bars.forEach(function (bar) { bar.style.width = bar.getAttribute("data-width") + "%"; });
  });
})();
