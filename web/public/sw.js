/*
 * AgentMail's service worker: Web Push only (no fetch handler, nothing cached).
 *
 * A push names a permission request or a question (kind, agent, conversation id, a path of
 * the web UI) and never its text: the notification says who asks, and a click opens the
 * request in a tab of this origin, signing in first if needed (docs/web.md, "Web Push").
 */
const TEXT = {
  en: {
    permission_request: (agent) => `${agent} asks for your permission`,
    question: (agent) => `${agent} asks you a question`,
    body: (conversation) => `Conversation ${conversation} · open AgentMail to answer`,
  },
  zh: {
    permission_request: (agent) => `${agent} 请求你的许可`,
    question: (agent) => `${agent} 向你提了一个问题`,
    body: (conversation) => `会话 ${conversation} · 打开 AgentMail 处理`,
  },
};

/** A path of this origin only: a push can never send a click elsewhere. */
function target(path) {
  const safe = typeof path === "string" && path.startsWith("/") && !path.startsWith("//");
  return new URL(safe ? path : "/", self.location.origin).href;
}

function text(value, fallback) {
  return typeof value === "string" && value ? value.slice(0, 80) : fallback;
}

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const words = (self.navigator.language || "en").toLowerCase().startsWith("zh") ? TEXT.zh : TEXT.en;
  const kind = data.kind === "question" ? "question" : "permission_request";
  const title = words[kind](text(data.agent, "AgentMail"));
  event.waitUntil(
    self.registration.showNotification(title, {
      body: words.body(text(data.session_id, "").slice(0, 8)),
      tag: `agentmail-${text(data.mail_id, kind)}`,
      icon: "/favicon.svg",
      data: { url: target(data.url), kind, mailId: text(data.mail_id, "") },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const ours = typeof data.url === "string" && data.url.startsWith(`${self.location.origin}/`);
  const url = ours ? data.url : target("/");
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (open) {
        await open.focus();
        await open.navigate(url);
        return;
      }
      await self.clients.openWindow(url);
    })(),
  );
});
