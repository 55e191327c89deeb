/* global window, document, URLSearchParams */
// Shared by the fake Plaid Link and Teller Connect scripts: a modal the test clicks through, and the
// JSONP round trip to the test's widget server (the vendors' widgets also talk to their own origin).
(function () {
  if (window.__fakeWidgets) return;

  let seq = 0;

  /** Loads `${origin}${path}?…&callback=…`; the server's script calls back with its JSON answer. */
  function jsonp(origin, path, params) {
    return new Promise(function (resolve, reject) {
      const name = "__fakeWidgetCallback" + ++seq;
      const script = document.createElement("script");
      window[name] = function (answer) {
        delete window[name];
        script.remove();
        resolve(answer);
      };
      const query = new URLSearchParams(Object.assign({}, params, { callback: name }));
      script.src = origin + path + "?" + query.toString();
      script.onerror = function () {
        delete window[name];
        script.remove();
        reject(new Error("the widget server did not answer " + path));
      };
      document.head.appendChild(script);
    });
  }

  /** A modal dialog with a heading, a line of text and one button per choice; resolves the choice. */
  function choose(title, text, choices) {
    return new Promise(function (resolve) {
      const backdrop = document.createElement("div");
      Object.assign(backdrop.style, {
        position: "fixed",
        inset: "0",
        background: "rgba(0,0,0,0.45)",
        display: "flex",
        alignItems: "center",
        justifyContent: "center",
        zIndex: "2147483647",
      });
      const box = document.createElement("div");
      box.setAttribute("role", "dialog");
      box.setAttribute("aria-modal", "true");
      box.setAttribute("aria-label", title);
      Object.assign(box.style, {
        background: "#fff",
        color: "#111",
        padding: "24px",
        borderRadius: "12px",
        width: "min(340px, 90vw)",
        fontFamily: "system-ui, sans-serif",
      });
      const h = document.createElement("h2");
      h.textContent = title;
      const p = document.createElement("p");
      p.textContent = text;
      box.append(h, p);
      for (const c of choices) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = c.label;
        Object.assign(b.style, { display: "block", width: "100%", margin: "8px 0", padding: "10px" });
        b.addEventListener("click", function () {
          backdrop.remove();
          resolve(c.value);
        });
        box.appendChild(b);
      }
      backdrop.appendChild(box);
      document.body.appendChild(backdrop);
      box.querySelector("button").focus();
    });
  }

  window.__fakeWidgets = { jsonp: jsonp, choose: choose };
})();
