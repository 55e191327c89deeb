/* global window, document, URL, setTimeout */
// A stand-in for Plaid Link (link-initialize.js), served by the browser tests' widget server after
// widget-dialog.js. Same global and callbacks as the vendor's: Plaid.create({token, onSuccess, onExit,
// onEvent, onLoad}) → {open, exit, destroy}. The person picks the outcome in a dialog; on "Continue" the
// widget server mints a public token the fake Plaid server accepts (or, for an update-mode link token,
// repairs the Item's login, as Plaid does when the person logs in again).
(function () {
  const origin = new URL(document.currentScript.src).origin;
  const widgets = window.__fakeWidgets;

  function create(config) {
    if (!config || typeof config.token !== "string") throw new Error("Plaid.create needs a link token");
    const sessionId = "link-session-" + Math.random().toString(36).slice(2);
    const event = function (name, extra) {
      if (config.onEvent)
        config.onEvent(name, Object.assign({ link_session_id: sessionId, timestamp: new Date().toISOString() }, extra));
    };
    let open = false;
    const exit = function (error, status) {
      open = false;
      event(error ? "ERROR" : "EXIT", error ? { error_code: error.error_code } : {});
      if (config.onExit)
        config.onExit(error, {
          status: status,
          link_session_id: sessionId,
          institution: null,
          request_id: "req-" + sessionId,
        });
    };
    if (config.onLoad) setTimeout(config.onLoad, 0);
    return {
      open: function () {
        if (open) return;
        open = true;
        event("OPEN", {});
        widgets
          .choose("Plaid Link (test double)", "Log in to First Platypus Bank", [
            { label: "Continue", value: "success" },
            { label: "Exit", value: "exit" },
            { label: "Fail with an error", value: "error" },
          ])
          .then(function (choice) {
            if (choice === "exit") return exit(null, "requires_credentials");
            if (choice === "error") {
              return exit(
                {
                  error_type: "ITEM_ERROR",
                  error_code: "INVALID_CREDENTIALS",
                  error_message: "the provided credentials were not correct",
                  display_message: "The credentials you provided were incorrect.",
                },
                "requires_credentials",
              );
            }
            return widgets.jsonp(origin, "/plaid/complete.js", { link_token: config.token }).then(function (answer) {
              if (answer.error) return exit(answer.error, "institution_not_found");
              open = false;
              event("HANDOFF", {});
              config.onSuccess(answer.public_token, answer.metadata);
            });
          })
          .catch(function (e) {
            exit(
              {
                error_type: "API_ERROR",
                error_code: "INTERNAL_SERVER_ERROR",
                error_message: String(e),
                display_message: null,
              },
              null,
            );
          });
      },
      exit: function () {
        if (open) exit(null, null);
      },
      submit: function () {},
      destroy: function () {},
    };
  }

  window.Plaid = { create: create, version: "fake" };
})();
