// The board inside Discord: the Embedded App SDK's handshake with the Discord client that framed this page, then
// authorize (scope identify) for a code, which the bot exchanges and checks with Discord itself (the user, the
// activity instance, its channel); the bot answers with a session token for the channel's game, kept in memory
// only and sent with every request. The SDK is served by the bot (Discord's proxy runs no outside script).
import { DiscordSDK } from "/static/sdk/index.mjs";

const status = document.getElementById("status");
const data = JSON.parse(document.getElementById("data").textContent);

function refuse(text) {
  status.textContent = "";
  const note = document.createElement("p");
  note.className = "refusal";
  note.setAttribute("role", "alert");
  note.textContent = text;
  document.getElementById("controls").replaceChildren(note);
  document.body.classList.add("refused-activity");
}

async function begin() {
  const sdk = new DiscordSDK(data.client_id, { disableConsoleLogOverride: true });
  await sdk.ready();
  let answer = null;
  for (let tries = 0; tries < 5; tries++) {  // a server busy with sign-ins says when to come back (a new code)
    const { code } = await sdk.commands.authorize({
      client_id: data.client_id, response_type: "code", state: "", prompt: "none", scope: ["identify"],
    });
    answer = await fetch("/activity/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: code, instance_id: sdk.instanceId, channel_id: sdk.channelId }),
    });
    if (answer.status !== 429) break;
    const pause = Number(answer.headers.get("Retry-After")) || 5;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, 30) * 1000));
  }
  const got = await answer.json().catch(() => ({}));
  if (!answer.ok) { refuse(got.text || String(answer.status)); return; }
  await sdk.commands.authenticate({ access_token: got.access_token });
  const page = await fetch(`/g/${got.game}/data`, { headers: { Authorization: "Bearer " + got.session } });
  if (!page.ok) { refuse(String(page.status)); return; }
  window.RiskBoard.start(await page.json(), got.session);
}

begin().catch((error) => refuse(String((error && error.message) || error)));
