// The window's own script and style sheet, served from its origin (the CSP allows nothing
// else): no framework, no CDN.
enum WindowAssets {
    /// The page script: the event stream that replaces fragments, and the controls' posts.
    static let script = """
        "use strict";
        (() => {
          const page = document.body.dataset.page;
          const csrf = document.querySelector('meta[name="appex-csrf"]').content;
          const status = document.getElementById("window-status");
          const say = (text) => { status.textContent = text; };
          const events = new EventSource("/events?page=" + encodeURIComponent(page));
          events.addEventListener("replace", (event) => {
            const update = JSON.parse(event.data);
            const old = document.getElementById(update.id);
            if (!old) return;
            // The server's markup, escaped there: no script in it runs (the CSP allows only ours).
            const template = document.createElement("template");
            template.innerHTML = update.html;
            const fresh = template.content.firstElementChild;
            if (fresh) old.replaceWith(fresh);
          });
          events.addEventListener("open", () => { document.body.dataset.live = "yes"; });
          events.addEventListener("error", () => { document.body.dataset.live = "no"; });
          document.addEventListener("click", async (event) => {
            const control = event.target.closest("[data-action]");
            if (!control) return;
            const body = new URLSearchParams();
            body.append("page", page);
            for (const [key, value] of Object.entries(control.dataset)) body.append(key, value);
            if (control.type === "checkbox") {
              body.append("checked", control.checked ? "true" : "false");
            } else {
              event.preventDefault();
            }
            try {
              const response = await fetch("/action", {
                method: "POST",
                headers: { "X-Appex-CSRF": csrf },
                body,
                credentials: "same-origin",
              });
              say(response.ok ? "" : await response.text());
            } catch (error) {
              say("the window is not answering: " + error);
            }
          });
        })();
        """

    /// The page style: system fonts, a grid of cards.
    static let styleSheet = """
        :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
        body { margin: 0; background: Canvas; color: CanvasText; }
        header { padding: 12px 20px; border-bottom: 1px solid #8884; display: flex; gap: 16px; align-items: baseline; }
        header h1 { font-size: 18px; margin: 0; }
        nav a { margin-right: 12px; }
        main { padding: 16px 20px; }
        #window-status { margin: 0 20px; color: #c33; min-height: 1.2em; }
        body[data-live="no"] header::after { content: "reconnecting…"; color: #c33; }
        .card { border: 1px solid #8886; border-radius: 12px; padding: 12px; overflow: hidden; }
        """
}
