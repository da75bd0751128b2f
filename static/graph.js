// Draws an entity graph (nodes and edges from the graph API's payload, put in the page by
// json_script) with vis-network. Any element with data-graph="<id of the JSON script>"
// becomes a drawing; data-link is the URL of an entity page with ENTITY in place of its id.
(function () {
  "use strict";
  function draw(box) {
    var data = JSON.parse(document.getElementById(box.getAttribute("data-graph")).textContent);
    var link = box.getAttribute("data-link") || "";
    var nodes = data.nodes.map(function (n) {
      return {
        id: n.id, label: n.label, group: n.type || "untyped",
        title: n.label + " [" + (n.type || "untyped") + "] · " + n.fact_count,
        value: 1 + 10 * n.importance, borderWidth: n.id === data.root ? 4 : 1,
        font: { size: 14, background: "rgba(255,255,255,0.85)" },
      };
    });
    var edges = data.edges.map(function (e) {
      return {
        id: e.id, from: e.source, to: e.target, label: e.relation, arrows: "to", value: e.weight,
        title: e.relation, font: { size: 11, align: "middle", background: "rgba(255,255,255,0.9)", strokeWidth: 0 },
      };
    });
    var network = new window.vis.Network(
      box,
      { nodes: new window.vis.DataSet(nodes), edges: new window.vis.DataSet(edges) },
      {
        nodes: { shape: "dot", scaling: { min: 8, max: 28, label: { enabled: false } } },
        edges: { scaling: { min: 1, max: 5 }, smooth: { type: "dynamic" }, length: 220 },
        // Labels need room: long springs and overlap avoidance keep them apart.
        physics: {
          solver: "forceAtlas2Based",
          forceAtlas2Based: { gravitationalConstant: -120, springLength: 200, avoidOverlap: 1 },
          stabilization: { iterations: 300 },
        },
        interaction: { hover: true },
      }
    );
    network.once("stabilizationIterationsDone", function () {
      network.setOptions({ physics: false });
      box.setAttribute("data-drawn", "true");
    });
    network.on("doubleClick", function (params) {
      if (params.nodes.length && link) {
        window.location = link.replace("ENTITY", encodeURIComponent(params.nodes[0]));
      }
    });
  }
  function start() { document.querySelectorAll("[data-graph]").forEach(draw); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
