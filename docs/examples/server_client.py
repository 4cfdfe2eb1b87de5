"""Renders through a running `engine serve` and downloads the result:
`python3 server_client.py <server URL> <composition> <output file> [more body fields as JSON]`,
for example '{"variables": {"title": "Hi"}, "format": "webm"}'.
The token, if the server has one, comes from ENGINE_SERVER_TOKEN. Standard library only."""
import json
import os
import shutil
import sys
import urllib.request
from urllib.parse import urljoin

server, composition, output = sys.argv[1:4]
fields = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
headers = {"Content-Type": "application/json"}
if os.environ.get("ENGINE_SERVER_TOKEN"):
    headers["Authorization"] = "Bearer " + os.environ["ENGINE_SERVER_TOKEN"]

body = json.dumps({"composition": composition, **fields}).encode()
request = urllib.request.Request(urljoin(server, "/render/stream"), data=body, headers=headers, method="POST")
finished = None
with urllib.request.urlopen(request) as stream:
    # Server-sent events: each event is a `data: <json>` line followed by a blank line.
    data = []
    for raw in stream:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].strip())
            continue
        if line or not data:
            continue
        event = json.loads("\n".join(data))
        data = []
        if event["type"] == "queued":
            print(f"queued at position {event['position']}")
        elif event["type"] == "progress":
            print(f"{event['stage']} {event['frame']}/{event['totalFrames']}")
        elif event["type"] == "warning":
            print(f"warning [{event['code']}]: {event['message']}", file=sys.stderr)
        elif event["type"] in ("complete", "error"):
            finished = event

if not finished or finished["type"] != "complete":
    sys.exit(f"render failed: {json.dumps(finished)}")

download = urllib.request.Request(urljoin(server, finished["outputUrl"]), headers={k: v for k, v in headers.items() if k == "Authorization"})
with urllib.request.urlopen(download) as response, open(output, "wb") as file:
    shutil.copyfileobj(response, file)
print(f"{output}: {finished['totalFrames']} frames, {finished['bytes']} bytes")
