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
    style: [
      {
        selector: "node",
        style: {
          label: "data(label)",
          "font-size": 11,
          "text-wrap": "ellipsis",
          "text-max-width": 160,
          "text-valign": "bottom",
          "text-margin-y": 4,
          color: "#1d2430",
          width: 18,
          height: 18,
          "background-color": "#2f5fd0",
        },
      },
      { selector: 'node[kind = "center"]', style: { "background-color": "#b42318", width: 28, height: 28, "font-weight": "bold" } },
      { selector: 'node[kind = "memory"]', style: { "background-color": "#1f7a4d", shape: "round-rectangle", width: 14, height: 14, color: "#3d4654" } },
      { selector: "edge", style: { width: 1.2, "line-color": "#c5cdd8", "curve-style": "bezier", label: "data(label)", "font-size": 9, color: "#5d6878" } },
      { selector: "node:active, node:selected", style: { "overlay-opacity": 0.15 } },
    ],
    layout: { name: "cose", animate: false, nodeRepulsion: 9000, idealEdgeLength: 90, padding: 20 },
  });
  cy.on("tap", "node", function (event) {
    var href = event.target.data("href");
    if (href) {
      window.location.assign(href);
    }
  });
  container.setAttribute("data-drawn", String(cy.nodes().length));
})();
