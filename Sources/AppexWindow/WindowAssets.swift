import AppexWidgetHost

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
          // Sizes and colours of drawn views come as data-style (numbers the renderer formatted):
          // set through the CSSOM, which the page's policy allows, where a style attribute is not.
          const styled = (root) => {
            const nodes = root.querySelectorAll ? [root, ...root.querySelectorAll("[data-style]")] : [];
            for (const node of nodes) {
              if (!node.dataset || !node.dataset.style) continue;
              for (const declaration of node.dataset.style.split(";")) {
                const colon = declaration.indexOf(":");
                if (colon > 0) node.style.setProperty(declaration.slice(0, colon).trim(), declaration.slice(colon + 1).trim());
              }
            }
          };
          styled(document.body);
          // Running timers (a widget's Text(date, style: .timer), ProgressView(timerInterval:)) move
          // every second, between the widget's entries, as on a home screen: the distance to the
          // date their renderer wrote, as it draws it (4:59, 1:02:03).
          const two = (value) => (value < 10 ? "0" : "") + value;
          const tick = () => {
            const now = Math.floor(Date.now() / 1000);
            for (const timer of document.querySelectorAll("[data-timer]")) {
              const seconds = Math.abs(Number(timer.dataset.timer) - now);
              if (!Number.isFinite(seconds)) continue;
              const hours = Math.floor(seconds / 3600), minutes = Math.floor((seconds % 3600) / 60), rest = seconds % 60;
              timer.textContent = hours > 0 ? hours + ":" + two(minutes) + ":" + two(rest) : minutes + ":" + two(rest);
            }
          };
          setInterval(tick, 1000);
          // What the page shows goes with the stream, which first sends the page anew if it changed.
          const shown = document.getElementById("page").dataset.shown || "";
          const events = new EventSource("/events?page=" + encodeURIComponent(page) + "&shown=" + encodeURIComponent(shown));
          events.addEventListener("replace", (event) => {
            const update = JSON.parse(event.data);
            const old = document.getElementById(update.id);
            if (!old) return;
            // The server's markup, escaped there: no script in it runs (the CSP allows only ours).
            const template = document.createElement("template");
            template.innerHTML = update.html;
            const fresh = template.content.firstElementChild;
            if (!fresh || fresh.id !== update.id) return;
            styled(fresh);
            // What the person is doing in it carries over: an open "Edit widget", and the field
            // being typed in (its value and focus), so a redraw never closes or clears them.
            const opened = [...old.querySelectorAll("details")].map((details) => details.open);
            fresh.querySelectorAll("details").forEach((details, index) => { if (opened[index]) details.open = true; });
            const focused = old.contains(document.activeElement) ? document.activeElement : null;
            old.replaceWith(fresh);
            const field = focused && focused.dataset.parameter;
            if (field) {
              const twin = fresh.querySelector("[data-parameter='" + CSS.escape(field) + "']");
              if (twin) { twin.value = focused.value; twin.focus(); }
            }
          });
          events.addEventListener("open", () => { document.body.dataset.live = "yes"; });
          // The first broken stream ends the page: it never reconnects, so whatever binds the port
          // after this server died gets no request from it and can show nothing in it, and it
          // sends nothing more (a restarted window prints a new link, at a new address).
          let stopped = false;
          const stoppedText = "The window stopped: its server is no longer running. Open the link it prints when it starts again.";
          // Why the page stopped, said again when a control is used afterwards.
          let stoppedBecause = stoppedText;
          const stop = (text) => {
            if (stopped) return;
            stopped = true;
            stoppedBecause = text;
            events.close();
            document.body.dataset.live = "no";
            say(text);
          };
          events.addEventListener("error", () => stop(stoppedText));
          // The session ended (its "End session", a newer login, idle too long): the page shows nothing
          // of it any more, says why and how to log in again, and sends nothing more.
          const newLink = "For a new login link, send the process that serves this window SIGUSR1, or start it again.";
          const endedText = {
            "logged-out": "You ended this session.",
            "replaced": "A newer login link was used, and this session ended.",
            "idle": "This session ended: no page of it was open for a while.",
          };
          const end = (why) => {
            const content = document.getElementById("page");
            if (content) content.replaceChildren();
            stop((endedText[why] || "This session ended.") + " " + newLink);
          };
          events.addEventListener("ended", (event) => end(event.data));
          const logOut = document.getElementById("end-session");
          if (logOut) logOut.addEventListener("click", async () => {
            if (stopped) return;
            let response = null;
            try {
              response = await fetch("/logout", { method: "POST", headers: { "X-Appex-CSRF": csrf }, credentials: "same-origin" });
            } catch (error) {
              // The server is gone: nothing to end there; the page ends all the same.
            }
            // Refused (the session is live still): say the server's words, never claim it ended.
            if (response && !response.ok) { say(await response.text()); return; }
            end("logged-out");
          });
          const post = async (fields) => {
            if (stopped) { say(stoppedBecause); return false; }
            const body = new URLSearchParams();
            body.append("page", page);
            for (const [key, value] of Object.entries(fields)) body.append(key, value);
            try {
              const response = await fetch("/action", {
                method: "POST",
                headers: { "X-Appex-CSRF": csrf },
                body,
                credentials: "same-origin",
              });
              say(response.ok ? "" : await response.text());
              return response.ok;
            } catch (error) {
              // No request reached the server (it stopped, or the network is down): say so in
              // words, never the browser's error.
              say("The window is not answering. If it stopped, open the link it prints when it starts again.");
              return false;
            }
          };
          // A page's own field (a search, a passcode): its value, when it is committed.
          document.addEventListener("change", async (event) => {
            const field = event.target.closest("input[data-action]:not([type=checkbox]), select[data-action]");
            if (!field) return;
            const fields = Object.assign({}, field.dataset);
            fields.value = field.value;
            if (field.type === "password") field.value = "";
            await post(fields);
          });
          // A scene's text field or picker: its new value, when it is committed.
          document.addEventListener("change", async (event) => {
            const field = event.target.closest("input[data-scene-control], select[data-scene-control]");
            const scene = field && field.closest("[data-scene]");
            if (!scene) return;
            const kind = field.tagName === "SELECT" ? "choose" : "text";
            await post({ action: "scene", scene: scene.dataset.scene, control: field.dataset.sceneControl, event: kind, value: field.value });
          });
          // A widget's link is a link to the keyboard too: Enter opens it as a click does.
          document.addEventListener("keydown", (event) => {
            if (event.key === "Enter" && event.target.matches && event.target.matches("[data-open-url]")) event.target.click();
          });
          document.addEventListener("click", async (event) => {
            // A scene's button or switch: the extension handles it and draws the scene again.
            const sceneControl = event.target.closest("button[data-scene-control]");
            const scene = sceneControl && sceneControl.closest("[data-scene]");
            if (scene) {
              event.preventDefault();
              const kind = sceneControl.getAttribute("role") === "switch" ? "toggle" : "tap";
              await post({ action: "scene", scene: scene.dataset.scene, control: sceneControl.dataset.sceneControl, event: kind });
              return;
            }
            // A tap on an interactive widget's button or switch: the widget host performs its
            // intent (named by its place in the widget, never by the page).
            const intent = event.target.closest("[data-intent]");
            const intentTile = intent && intent.closest("[data-widget]");
            if (intentTile) {
              event.preventDefault();
              intent.disabled = true;
              await post({ action: "intent", key: intentTile.dataset.widget, entry: intentTile.dataset.entry, intent: intent.dataset.intent });
              intent.disabled = false;
              return;
            }
            // A tap on a widget's link: the window opens its app, with that URL.
            const link = event.target.closest("[data-open-url]");
            const tile = link && link.closest("[data-widget]");
            if (tile) {
              event.preventDefault();
              await post({ action: "open", key: tile.dataset.widget, url: link.dataset.openUrl });
              return;
            }
            const control = event.target.closest("[data-action]");
            // A field posts its value when it is committed (the change listeners above), not on a click.
            if (!control || control.matches("input:not([type=checkbox]), select, textarea")) return;
            const fields = Object.assign({}, control.dataset);
            if (control.type === "checkbox") {
              fields.checked = control.checked ? "true" : "false";
            } else {
              event.preventDefault();
            }
            const ok = await post(fields);
            if (!ok && control.type === "checkbox") control.checked = !control.checked;
          });
        })();
        """

    /// The window's icon, inline in each document (a data: URL, which the pages' policy allows
    /// for images), so a browser asks the server for no /favicon.ico: three tiles.
    static let icon =
        "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
        + "%3Crect x='1' y='1' width='6' height='6' rx='1.5' fill='%230a84ff'/%3E"
        + "%3Crect x='9' y='1' width='6' height='6' rx='1.5' fill='%2330d158'/%3E"
        + "%3Crect x='1' y='9' width='14' height='6' rx='1.5' fill='%23ff9f0a'/%3E%3C/svg%3E"

    /// The page style: system fonts, a grid of cards, and the widget host's own rules for
    /// drawn widgets.
    static let styleSheet = ownRules + HTMLStyleSheet.widgetRules

    private static let ownRules = """
        :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
        body { margin: 0; background: Canvas; color: CanvasText; }
        header { padding: 12px 20px; border-bottom: 1px solid #8884; display: flex; gap: 16px; align-items: baseline; }
        header h1 { font-size: 18px; margin: 0; }
        nav a { margin-right: 12px; }
        #end-session { margin-left: auto; font: inherit; font-size: 14px; padding: 2px 10px; border-radius: 8px; border: 1px solid #8886; background: ButtonFace; color: ButtonText; cursor: pointer; }
        body[data-live="no"] #end-session { display: none; }
        main { padding: 16px 20px; }
        #window-status { margin: 0 20px; color: #c33; min-height: 1.2em; }
        body[data-live="no"] > header::after { content: "stopped"; color: #c33; }
        .card { border: 1px solid #8886; border-radius: 12px; padding: 12px; overflow: hidden; }
        .extensions { list-style: none; padding: 0; margin: 0; display: grid; gap: 10px; }
        .extension-head { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
        .extension-head code { opacity: 0.7; }
        .badge { font-size: 12px; padding: 1px 8px; border-radius: 999px; border: 1px solid #8886; }
        .state-enabled { background: #2a7d2a22; } .state-disabled { background: #8883; }
        .state-unapproved { background: #c9a20033; } .state-invalid { background: #c3333333; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 0; font-size: 14px; }
        .facts dt { opacity: 0.7; } .facts dd { margin: 0; overflow-wrap: anywhere; }
        .reasons { margin: 8px 0 0; padding-left: 18px; font-size: 13px; color: #b33; }
        .toggle { width: 18px; height: 18px; } .toggle-none { width: 18px; }
        #desktop { background: linear-gradient(160deg, #8fb8f0 0%, #b9a7e8 55%, #f0b5c8 100%); padding: 24px; border-radius: 16px; min-height: 240px; gap: 24px; }
        #desktop > .empty { color: #fff; opacity: 1; text-shadow: 0 1px 2px #0006; }
        .widget-tile { display: flex; flex-direction: column; gap: 6px; align-items: center; }
        .widget-tile .widget { color-scheme: light; box-shadow: 0 4px 14px #0000002e; }
        .widget-tile[data-health="stale"] .widget { outline: 2px solid #ff453a; outline-offset: 2px; }
        .widget-tile[data-health="budget-exhausted"] .widget { outline: 2px solid #ff9f0a; outline-offset: 2px; }
        .tile-label { display: flex; gap: 6px; align-items: center; color: #fff; font-size: 13px; font-weight: 500; text-shadow: 0 1px 2px #0007; max-width: 100%; }
        .app-name { display: inline-flex; gap: 6px; align-items: center; min-width: 0; }
        .app-name > span:last-child { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .app-icon { width: 18px; height: 18px; border-radius: 5px; flex: none; }
        .monogram { display: inline-grid; place-items: center; font-size: 11px; font-weight: 700; color: #fff; text-shadow: none; }
        .mark { font-size: 11px; font-weight: 600; padding: 1px 7px; border-radius: 999px; text-shadow: none; }
        .mark-stale { background: #ff453a; color: #fff; }
        .mark-budget { background: #ff9f0a; color: #000; }
        .edit-widget { color: #fff; font-size: 13px; text-shadow: 0 1px 2px #0007; max-width: 100%; }
        .edit-widget summary { cursor: pointer; }
        .edit-widget form { display: grid; grid-template-columns: max-content 1fr; gap: 4px 8px; margin-top: 6px; padding: 8px; border-radius: 8px; background: #0006; text-shadow: none; }
        .edit-widget .presets { grid-column: 1 / -1; display: flex; gap: 6px; flex-wrap: wrap; }
        .widget-tile .updated { margin: 0; font-size: 11px; color: #fffd; text-shadow: 0 1px 2px #0007; }
        @media (prefers-color-scheme: dark) {
          #desktop { background: linear-gradient(160deg, #1c2a4a 0%, #2b2350 55%, #4a2338 100%); }
          .widget-tile .widget { box-shadow: 0 4px 14px #00000080; }
        }
        .empty { opacity: 0.7; }
        button, input { font: inherit; }
        main button:not(.control) { padding: 4px 12px; border-radius: 8px; border: 1px solid #8886; background: ButtonFace; color: ButtonText; cursor: pointer; }
        .card + .card, .card + .columns, .columns + .card { margin-top: 12px; }
        .columns { display: grid; grid-template-columns: minmax(240px, 340px) 1fr; gap: 12px; align-items: start; }
        .account { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
        .account .message { opacity: 0.75; }
        .contacts ul { list-style: none; padding: 0; margin: 8px 0 0; }
        .contacts li { display: flex; justify-content: space-between; gap: 8px; padding: 4px 0; border-bottom: 1px solid #8883; }
        .contacts li button { all: unset; cursor: pointer; font-weight: 600; }
        .contacts li.selected button { color: #007aff; }
        .contacts .company, .contacts .count { opacity: 0.7; font-size: 14px; }
        .contacts input { width: 100%; box-sizing: border-box; padding: 4px 8px; }
        .detail h2 { margin: 0 0 4px; }
        .translators { display: flex; gap: 8px; margin: 8px 0; }
        .translators button.chosen { background: #007aff; color: #fff; border-color: #007aff; }
        .scene { display: inline-block; contain: content; overflow: hidden; border-radius: 20px; background: #e5e5ea; padding: 12px; }
        .scene button.scene-toggle.off { background: #e5e5ea; color: #000; }
        .scene-field { display: flex; gap: 8px; align-items: center; font-size: 14px; }
        .scene-field input, .scene-field select { font: inherit; padding: 2px 6px; }
        .widget button.control { display: inline-flex; align-items: center; gap: 6px; font: inherit; font-size: 14px; border: none; border-radius: 8px; padding: 4px 10px; margin: 2px 0; background: #007aff; color: #fff; cursor: pointer; }
        .widget button.intent-toggle.off { background: #e5e5ea; color: #000; }
        .widget button.intent-toggle.on::before { content: "● "; } .widget button.intent-toggle.off::before { content: "○ "; }
        """
}
