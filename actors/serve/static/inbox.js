// The inbox keeps itself current: dispute events arrive over Server-Sent Events
// (the browser resumes the stream with Last-Event-ID by itself), and the list is
// fetched again and merged in place. Cards already on the page are left as they are
// (a half-written note survives), new ones are added, settled ones removed. Nothing
// from the server is written as HTML except the server's own escaped fragment.
"use strict";
(() => {
  const base = document.body.dataset.base;
  const holder = document.getElementById("disputes");
  const live = document.getElementById("live");
  if (!holder || !window.EventSource) return;

  function merge(fresh) {
    const list = holder.querySelector("#cards");
    const next = fresh.getElementById("cards");
    if (!list || !next) return;
    const have = new Map(Array.from(list.querySelectorAll("li[data-dispute]"), (li) => [li.dataset.dispute, li]));
    const keep = new Set();
    let previous = null;
    for (const li of Array.from(next.querySelectorAll("li[data-dispute]"))) {
      keep.add(li.dataset.dispute);
      let node = have.get(li.dataset.dispute);
      if (!node) {
        node = document.importNode(li, true);
        node.classList.add("new");
      }
      const slot = previous ? previous.nextElementSibling : list.firstElementChild;
      if (slot !== node) {
        if (previous) previous.after(node); else list.prepend(node);
      }
      previous = node;
    }
    for (const [id, li] of have) if (!keep.has(id)) li.remove();
    const empty = list.querySelector("#empty");
    if (keep.size && empty) empty.remove();
    if (!keep.size && !empty) {
      const shown = next.querySelector("#empty");
      if (shown) list.append(document.importNode(shown, true));
    }
    const count = fresh.getElementById("count");
    if (count) holder.querySelector("#count").textContent = count.textContent;
  }

  let timer = null;
  async function refresh() {
    timer = null;
    const answer = await fetch(base + "/list", { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (answer.status === 401 || answer.status === 403) { location.reload(); return; }
    if (answer.ok) merge(new DOMParser().parseFromString(await answer.text(), "text/html"));
  }

  function heard(message) {
    let event = {};
    try { event = JSON.parse(message.data); } catch (_) { /* a cursor-only message */ }
    if (message.type === "dispute_opened" && event.entity) {
      live.textContent = "New dispute on " + event.entity + (event.needs_user ? ", waiting for you" : "");
    } else if (message.type === "dispute_changed" && event.reason === "high_stakes" && event.entity) {
      live.textContent = "A dispute on " + event.entity + " now waits for you (the policy calls it high stakes)";
    }
    if (!timer) timer = setTimeout(refresh, 150);
  }

  const stream = new EventSource(base + "/stream");
  for (const kind of ["dispute_opened", "dispute_challenged", "dispute_changed", "dispute_resolved"]) stream.addEventListener(kind, heard);
  // the token was revoked while the page was open: stop listening; the reload shows the sign-in form
  stream.addEventListener("signed_out", () => { stream.close(); location.reload(); });
  document.body.classList.add("live");
})();
