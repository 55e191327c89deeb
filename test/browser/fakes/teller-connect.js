/* global window, document, URL, setTimeout */
// A stand-in for Teller Connect (connect.js), served by the browser tests' widget server after
// widget-dialog.js. Same global and callbacks as the vendor's: TellerConnect.setup({applicationId,
// environment, enrollmentId, onInit, onSuccess, onExit, onFailure}) → {open, destroy}. On "Continue" the
// widget server enrolls with the fake Teller server (or repairs the enrollment named by `enrollmentId`)
// and onSuccess gets the vendor's shape: {accessToken, user: {id}, enrollment: {id, institution: {name}}}.
(function () {
  const origin = new URL(document.currentScript.src).origin;
  const widgets = window.__fakeWidgets;

  function setup(config) {
    if (!config || typeof config.applicationId !== "string")
      throw new Error("TellerConnect.setup needs an applicationId");
    if (config.onInit) setTimeout(config.onInit, 0);
    let open = false;
    return {
      open: function () {
        if (open) return;
        open = true;
        const text = config.enrollmentId ? "Reconnect your bank" : "Select your bank: Chase";
        widgets
          .choose("Teller Connect (test double)", text, [
            { label: "Continue", value: "success" },
            { label: "Exit", value: "exit" },
            { label: "Fail with an error", value: "error" },
          ])
          .then(function (choice) {
            if (choice === "exit") {
              open = false;
              return config.onExit && config.onExit();
            }
            if (choice === "error") {
              open = false;
              const failure = { type: "payee", code: "timeout", message: "The institution did not respond in time." };
              return config.onFailure && config.onFailure(failure);
            }
            const params = { application_id: config.applicationId, environment: config.environment || "sandbox" };
            if (config.enrollmentId) params.enrollment_id = config.enrollmentId;
            return widgets.jsonp(origin, "/teller/complete.js", params).then(function (answer) {
              open = false;
              if (answer.failure) return config.onFailure && config.onFailure(answer.failure);
              config.onSuccess(answer.enrollment);
            });
          })
          .catch(function (e) {
            open = false;
            if (config.onFailure) config.onFailure({ type: "payer", code: "network", message: String(e) });
          });
      },
      destroy: function () {},
    };
  }

  window.TellerConnect = { setup: setup };
})();
