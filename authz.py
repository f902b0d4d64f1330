from h import *
import uuid, json, httpx2, asyncio
# 1. reuse another agent's claim id
cid = str(uuid.uuid4())
r = req("POST","/v1/facts", who="agent-a", json={"facts":[{"entity":"user.authz_probe","value":"A","text":"probe A","claim_id":cid}]}); print("a writes", r.status_code)
r = req("POST","/v1/facts", who="agent-b", json={"facts":[{"entity":"user.authz_probe","value":"A","text":"probe A","claim_id":cid}]}); show(r, 300)
c = req("GET", f"/v1/claims/{cid}").json(); print("claim agent still", c["agent"])
# 2. bad tokens on REST and MCP
for tok in [None, "vr_deadbeef_xxx", "garbage", T["agent-a"] + "x", T["agent-a"].replace("vr_", "VR_")]:
    h = {"Authorization": f"Bearer {tok}"} if tok else {}
    r = requests.get(U+"/v1/whoami", headers=h); print("REST", repr(tok)[:20], r.status_code, r.headers.get("www-authenticate"), r.text[:120])
    r = requests.post(U+"/mcp", headers={**h, "Content-Type":"application/json", "Accept":"application/json, text/event-stream"}, json={"jsonrpc":"2.0","id":1,"method":"tools/list"}); print("MCP ", repr(tok)[:20], r.status_code, r.text[:120])
# Basic auth instead of bearer
r = requests.get(U+"/v1/whoami", auth=("agent-a", T["agent-a"])); print("basic", r.status_code, r.text[:100])
# 3. MCP GET/DELETE
for m in ["GET","DELETE"]:
    r = requests.request(m, U+"/mcp", headers=H("agent-a")); print("MCP", m, r.status_code, r.text[:100])
# 4. MCP raw JSON-RPC malformed
for body in ['{', '[]', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember_fact","arguments":"notadict"}}',
             '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"x","k":1e309}}}',
             '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember_fact","arguments":{"entity":"user.mcpraw","value":"v","text":"t","session":""}}}',
             '{"jsonrpc":"2.0","id":1,"method":"nonexistent/method"}']:
    r = requests.post(U+"/mcp", headers={**H("agent-a"), "Content-Type":"application/json", "Accept":"application/json, text/event-stream", "MCP-Protocol-Version":"2025-06-18"}, data=body); print("MCP raw", body[:60], "->", r.status_code, r.text[:250])
