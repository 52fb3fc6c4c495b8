// Draws the neighbourhood the graph page carries (a JSON data block, never run as script) with
// cytoscape; a click on a node opens its page.
(function () {
  "use strict";
  var data = document.getElementById("graph-data");
  var container = document.getElementById("graph");
  if (!data || !container || typeof cytoscape !== "function") {
    return;
  }
  var cy = cytoscape({
    container: container,
    elements: JSON.parse(data.textContent),
    wheelSensitivity: 0.3,
    minZoom: 0.2,
    maxZoom: 1.6,
    style: [
      {
        selector: "node",
        style: {
          label: "data(label)",
          "font-size": 11,
          "text-wrap": "wrap",
          "text-max-width": 130,
          "text-valign": "bottom",
          "text-margin-y": 4,
          color: "#1d2430",
          width: 18,
          height: 18,
          "background-color": "#2f5fd0",
        },
      },
      { selector: 'node[kind = "center"]', style: { "background-color": "#b42318", width: 28, height: 28, "font-weight": "bold" } },
      { selector: 'node[kind = "memory"]', style: { "background-color": "#1f7a4d", shape: "round-rectangle", width: 14, height: 14, color: "#5d6878", "font-size": 9 } },
      { selector: "edge", style: { width: 1.2, "line-color": "#c5cdd8", "curve-style": "bezier", label: "data(label)", "font-size": 9, color: "#5d6878" } },
      { selector: "node:active, node:selected", style: { "overlay-opacity": 0.15 } },
    ],
    // Rings around the entity: the memories that mention it, then the entities beyond them.
    layout: {
      name: "concentric",
      animate: false,
      padding: 30,
      minNodeSpacing: 55,
      concentric: function (node) {
        return { center: 3, memory: 2, entity: 1 }[node.data("kind")];
      },
      levelWidth: function () {
        return 1;
      },
    },
  });
  cy.on("tap", "node", function (event) {
    var href = event.target.data("href");
    if (href) {
      window.location.assign(href);
    }
  });
  container.setAttribute("data-drawn", String(cy.nodes().length));
})();
